import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPlantClient, PlantClientError, type PlantIdInput } from '../../lib/client.ts';
import { scriptedFetch } from '../support/client-helpers.ts';
import { recordingRepository, TOKEN, testStore } from '../support/fakes.ts';

const BASE = 'http://127.0.0.1:1';
const FAST = { attempts: 3, baseDelayMs: 1, maxDelayMs: 20 };
const plantAnswer = () => Response.json({ name: 'Fern' });

describe('createPlantClient', () => {
  it('throws a TypeError naming the known option when an option name is misspelled', () => {
    assert.throws(() => createPlantClient({ baseURL: BASE, token: TOKEN } as never), {
      name: 'TypeError',
      message:
        'createPlantClient: unknown option "baseURL" (known: baseUrl, token, fetch, retry, timeoutMs)',
    });
    assert.throws(
      () => createPlantClient({ baseUrl: BASE, token: TOKEN, retry: { attempt: 2 } } as never),
      { name: 'TypeError', message: /unknown option "attempt"/ },
    );
  });

  it('throws a TypeError at construction when baseUrl has credentials, a query or a fragment, or is not absolute http(s)', () => {
    const refused = [
      'http://user:s3cr3t@127.0.0.1/api',
      'http://:s3cr3t@127.0.0.1/api',
      'http://127.0.0.1/api?v=1',
      'http://127.0.0.1/api?',
      'http://127.0.0.1/api#top',
      '/api',
      'ftp://127.0.0.1/',
      42,
    ];
    for (const baseUrl of refused) {
      assert.throws(
        () => createPlantClient({ baseUrl, token: TOKEN } as never),
        (error: Error) => {
          assert.equal(error.name, 'TypeError');
          assert.equal(
            error.message,
            "createPlantClient: baseUrl must be an absolute http(s) URL without credentials, query or fragment (in a page: new URL('/api', location.href))",
          );
          assert.doesNotMatch(error.message, /s3cr3t/, 'the message echoes the password');
          return true;
        },
      );
    }
  });

  it('throws a TypeError at construction for a token, fetch, retry or timeout that cannot work', () => {
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ token: '' }, /token must be a bearer token/],
      [{ token: 'has space' }, /token must be a bearer token .* not this string/],
      [{ token: 42 }, /not number/],
      [{ fetch: 'fetch' }, /fetch must be a function, not string/],
      [{ retry: true }, /options must be an object, not boolean/],
      [{ retry: { attempts: 0 } }, /retry.attempts must be a whole number from 1/],
      [{ retry: { attempts: 1.5 } }, /retry.attempts must be a whole number/],
      [
        { retry: { baseDelayMs: 100, maxDelayMs: 50 } },
        /retry.maxDelayMs must be a whole number from 100/,
      ],
      [{ timeoutMs: 0 }, /timeoutMs must be a whole number from 1 to 2147483647/],
      [{ timeoutMs: Number.NaN }, /timeoutMs must be a whole number/],
      [{ timeoutMs: 2 ** 31 }, /timeoutMs must be a whole number/],
    ];
    for (const [options, message] of refused) {
      assert.throws(
        () => createPlantClient({ baseUrl: BASE, token: TOKEN, ...options } as never),
        { name: 'TypeError', message },
        JSON.stringify(options),
      );
    }
    assert.throws(() => createPlantClient(null as never), { name: 'TypeError' });
  });

  it('stores every id exactly when it is a bigint, a safe-integer number or a decimal string', async () => {
    const { store, repository } = testStore();
    const client = createPlantClient({
      baseUrl: 'http://localhost',
      token: TOKEN,
      fetch: store.fetch,
    });
    const ids: Array<[PlantIdInput, bigint]> = [
      [9223372036854775807n, 9223372036854775807n],
      [-9223372036854775808n, -9223372036854775808n],
      ['9223372036854775806', 9223372036854775806n],
      ['-9223372036854775807', -9223372036854775807n],
      [Number.MAX_SAFE_INTEGER, 9007199254740991n],
      [-0, 0n],
      ['0009007199254740993', 9007199254740993n],
    ];
    for (const [id] of ids) {
      assert.deepEqual(await client.createPlant({ id, name: 'Fern' }), { name: 'Fern' });
    }
    assert.deepEqual(
      repository.create.mock.calls.map((call) => call.arguments[0].id),
      ids.map(([, stored]) => stored),
    );
  });

  it('rejects with a TypeError naming the fix, and sends nothing, when the id is not exactly an int64', async () => {
    const { fetch, requests } = scriptedFetch(plantAnswer());
    const client = createPlantClient({ baseUrl: BASE, token: TOKEN, fetch });
    const notInt64 =
      'createPlant: id must be an int64 [-9223372036854775808, 9223372036854775807]: a bigint, a safe-integer number or a decimal string';
    const refused: Array<[unknown, string]> = [
      [
        2 ** 53,
        'createPlant: id 9007199254740992 is past Number.MAX_SAFE_INTEGER and may already be rounded; pass it as a bigint or a decimal string from where it came',
      ],
      [1.5, notInt64],
      [Number.NaN, notInt64],
      [Infinity, notInt64],
      [2n ** 63n, notInt64],
      [-(2n ** 63n) - 1n, notInt64],
      ['9223372036854775808', notInt64],
      [`1${'0'.repeat(100_000)}`, notInt64],
      ['1e3', notInt64],
      [' 1', notInt64],
      ['+1', notInt64],
      ['0x10', notInt64],
      ['', notInt64],
      [true, notInt64],
      [null, notInt64],
      [undefined, notInt64],
    ];
    for (const [id, message] of refused) {
      await assert.rejects(client.createPlant({ id, name: 'Fern' } as never), {
        name: 'TypeError',
        message,
      });
    }
    await assert.rejects(client.createPlant({ id: 1, name: 7 } as never), {
      name: 'TypeError',
      message: 'createPlant: name must be a string, not number',
    });
    await assert.rejects(client.createPlant({ id: 1, name: 'Fern', tag: null } as never), {
      name: 'TypeError',
      message: 'createPlant: tag must be a string or absent, not null',
    });
    await assert.rejects(client.createPlant(null as never), { name: 'TypeError' });
    await assert.rejects(client.createPlant({ id: 1, name: 'Fern' }, { signl: 1 } as never), {
      name: 'TypeError',
      message: 'createPlant: unknown option "signl" (known: signal)',
    });
    // AbortSignal.any refuses what is not a signal, in each runtime's own words.
    await assert.rejects(client.createPlant({ id: 1, name: 'Fern' }, { signal: {} } as never), {
      name: 'TypeError',
    });
    assert.equal(requests.length, 0);
  });

  it('posts exactly the id, name and tag as JSON to /plants under the base path, with or without a trailing slash', async () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1:1', 'http://127.0.0.1:1/plants'],
      ['http://127.0.0.1:1/', 'http://127.0.0.1:1/plants'],
      ['http://127.0.0.1:1/api', 'http://127.0.0.1:1/api/plants'],
      ['http://127.0.0.1:1/api/', 'http://127.0.0.1:1/api/plants'],
      ['https://[::1]:8443/v1/plant-store', 'https://[::1]:8443/v1/plant-store/plants'],
    ];
    for (const [baseUrl, url] of cases) {
      const answer = { name: 'Fern\u{1F33F}', tag: 'a"b' };
      const { fetch, requests } = scriptedFetch(Response.json(answer));
      const client = createPlantClient({ baseUrl: new URL(baseUrl), token: TOKEN, fetch });
      const plant = { id: 9223372036854775807n, ...answer, extra: 1 };
      assert.deepEqual(await client.createPlant(plant), answer);
      const [sent] = requests;
      assert.equal(sent?.request.url, url);
      assert.equal(sent?.request.method, 'POST');
      assert.equal(sent?.request.headers.get('authorization'), `Bearer ${TOKEN}`);
      assert.equal(sent?.request.headers.get('content-type'), 'application/json');
      assert.equal(sent?.body, '{"id":9223372036854775807,"name":"Fern\u{1F33F}","tag":"a\\"b"}');
    }
  });

  it('creates, replays and refuses a changed plant through a store called in-process', async () => {
    const repository = recordingRepository();
    const { store } = testStore({ repository });
    const client = createPlantClient({
      baseUrl: 'http://localhost',
      token: TOKEN,
      fetch: store.fetch,
    });
    const plant = { id: 2n ** 63n - 1n, name: 'Monstera', tag: 'aroid' };
    assert.deepEqual(await client.createPlant(plant), { name: 'Monstera', tag: 'aroid' });
    assert.deepEqual(await client.createPlant(plant), { name: 'Monstera', tag: 'aroid' });
    const conflict = await client.createPlant({ ...plant, tag: 'fern' }).catch((error) => error);
    assert.ok(conflict instanceof PlantClientError);
    assert.equal(conflict.code, 'ERR_STATUS');
    assert.equal(conflict.name, 'PlantClientError');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.error, 409);
    assert.equal(conflict.message, 'a different plant is already stored under this id');
    assert.equal(repository.create.mock.callCount(), 3, 'a 409 is final');
  });

  it('holds the answer to the plant it sent when a getter would answer otherwise on a second read', async () => {
    const { store } = testStore();
    const client = createPlantClient({ baseUrl: BASE, token: TOKEN, fetch: store.fetch });
    const reads = { id: 0, name: 0, tag: 0 };
    const names = ['Fern', 'Ivy'];
    const plant = {
      get id() {
        reads.id += 1;
        return 7n;
      },
      get name() {
        return names[reads.name++ % 2] as string;
      },
      get tag() {
        reads.tag += 1;
        return undefined;
      },
    };
    assert.deepEqual(await client.createPlant(plant), { name: 'Fern' });
    assert.deepEqual(reads, { id: 1, name: 1, tag: 1 });
  });

  it('reads a token function before every attempt, sync or async, so a refreshed token is used on a retry', async () => {
    const { store } = testStore();
    let reads = 0;
    const seen: string[] = [];
    const fetch = async (request: Request) => {
      seen.push(request.headers.get('authorization') ?? '');
      return seen.length === 1
        ? Response.json({ error: 503, message: 'busy' }, { status: 503 })
        : store.fetch(request);
    };
    const tokens = ['old-token', TOKEN];
    for (const token of [() => tokens[reads++] as string, async () => tokens[reads++] as string]) {
      reads = 0;
      seen.length = 0;
      const client = createPlantClient({ baseUrl: BASE, token, fetch, retry: FAST });
      assert.deepEqual(await client.createPlant({ id: 1n, name: 'Fern' }), { name: 'Fern' });
      assert.deepEqual(seen, ['Bearer old-token', `Bearer ${TOKEN}`]);
    }
  });

  it('rejects with the error a token function throws or rejects with, sending nothing and never retrying', async () => {
    const { fetch, requests } = scriptedFetch(plantAnswer());
    const thrown = new Error('no session');
    let calls = 0;
    const sync = () => {
      calls += 1;
      throw thrown;
    };
    const async = async () => {
      calls += 1;
      throw thrown;
    };
    for (const token of [sync, async]) {
      const client = createPlantClient({ baseUrl: BASE, token, fetch, retry: FAST });
      await assert.rejects(
        client.createPlant({ id: 1n, name: 'Fern' }),
        (error) => error === thrown,
      );
    }
    assert.equal(calls, 2);
    const wrong = createPlantClient({ baseUrl: BASE, token: () => 'a b', fetch, retry: FAST });
    await assert.rejects(wrong.createPlant({ id: 1n, name: 'Fern' }), {
      name: 'TypeError',
      message:
        'createPlant: what token() returned must be a bearer token (RFC 6750 b64token), not this string',
    });
    const missing = createPlantClient({ baseUrl: BASE, token: () => undefined as never, fetch });
    await assert.rejects(missing.createPlant({ id: 1n, name: 'Fern' }), {
      name: 'TypeError',
      message: /token\(\) returned must be a bearer token .*, not undefined/,
    });
    assert.equal(requests.length, 0);
  });

  it('uses the global fetch, read at each call, when no fetch is given', async (t) => {
    const { fetch, requests } = scriptedFetch(plantAnswer());
    t.mock.method(globalThis, 'fetch', fetch);
    const client = createPlantClient({ baseUrl: BASE, token: TOKEN });
    assert.deepEqual(await client.createPlant({ id: '1', name: 'Fern' }), { name: 'Fern' });
    assert.equal(requests.length, 1);
  });
});
