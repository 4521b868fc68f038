import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createPlantClient,
  type CreatePlantClientOptions,
  PlantClientError,
} from '../../lib/client.ts';
import { errorAnswer, scriptedFetch } from '../support/client-helpers.ts';
import { TOKEN } from '../support/fakes.ts';
import { withDeadline } from '../support/node-helpers.ts';

const PLANT = { id: 1n, name: 'Fern' };
const FAST = { attempts: 4, baseDelayMs: 1, maxDelayMs: 20 };
const plantAnswer = () => Response.json({ name: 'Fern' });

function clientOf(
  answers: Parameters<typeof scriptedFetch>,
  options: Partial<CreatePlantClientOptions> = {},
) {
  const scripted = scriptedFetch(...answers);
  const client = createPlantClient({
    baseUrl: 'http://127.0.0.1:1',
    token: TOKEN,
    fetch: scripted.fetch,
    retry: FAST,
    ...options,
  });
  return { client, requests: scripted.requests };
}

/** A fetch that never answers and never looks at the request's signal. */
const hangs = () => new Promise<Response>(() => {});

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `date` in RFC 9110's obsolete RFC 850 form, `Sunday, 06-Nov-94 08:49:37 GMT`. */
function rfc850(date: Date): string {
  const [, day, month, year, time] = date.toUTCString().split(' ');
  return `${WEEKDAYS[date.getUTCDay()]}, ${day}-${month}-${year?.slice(-2)} ${time} GMT`;
}

/** `date` in ANSI C's asctime form, `Sun Nov  6 08:49:37 1994`, its day padded with a space. */
function asctime(date: Date): string {
  const [weekday, day, month, year, time] = date.toUTCString().split(' ');
  return `${weekday?.slice(0, 3)} ${month} ${String(Number(day)).padStart(2)} ${time} ${year}`;
}

describe('createPlant retries', () => {
  it('retries 429, 502, 503 and 504 and a failed connection until the plant is stored', async () => {
    const { client, requests } = clientOf(
      [
        errorAnswer(503),
        new TypeError('fetch failed'),
        errorAnswer(429),
        new Response('<h1>Bad Gateway</h1>', { status: 502 }),
        plantAnswer(),
      ],
      { retry: { ...FAST, attempts: 6 } },
    );
    assert.deepEqual(await client.createPlant(PLANT), { name: 'Fern' });
    assert.equal(requests.length, 5);
    const { client: gateway } = clientOf([errorAnswer(504), plantAnswer()]);
    assert.deepEqual(await gateway.createPlant(PLANT), { name: 'Fern' });
  });

  it('never retries any other status', async () => {
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 500, 501, 507]) {
      const { client, requests } = clientOf([errorAnswer(status), plantAnswer()]);
      const error = await client.createPlant(PLANT).catch((error: unknown) => error);
      assert.ok(error instanceof PlantClientError, `${status}`);
      assert.equal(error.code, 'ERR_STATUS');
      assert.equal(error.status, status);
      assert.equal(requests.length, 1, `${status} was retried`);
    }
  });

  it('gives up after the last attempt with the last answer', async () => {
    const { client, requests } = clientOf([errorAnswer(503)]);
    const error = await client.createPlant(PLANT).catch((error: unknown) => error);
    assert.ok(error instanceof PlantClientError);
    assert.equal(error.status, 503);
    assert.equal(requests.length, 4);
    const once = clientOf([errorAnswer(503)], { retry: false });
    await assert.rejects(once.client.createPlant(PLANT), { status: 503 });
    assert.equal(once.requests.length, 1);
  });

  it('rejects with a network error whose cause is the failure when every attempt fails to connect', async () => {
    const cause = new TypeError('fetch failed');
    const { client, requests } = clientOf([cause]);
    const error = await client.createPlant(PLANT).catch((error: unknown) => error);
    assert.ok(error instanceof PlantClientError);
    assert.equal(error.code, 'ERR_NETWORK');
    assert.equal(error.cause, cause);
    assert.equal(requests.length, 4);
  });

  it('fails an attempt like a rejection when fetch throws synchronously', async () => {
    const thrown = new Error('not a fetch');
    let calls = 0;
    const client = createPlantClient({
      baseUrl: 'http://127.0.0.1:1',
      token: TOKEN,
      retry: FAST,
      fetch: () => {
        calls += 1;
        if (calls < 3) throw thrown;
        return Promise.resolve(plantAnswer());
      },
    });
    assert.deepEqual(await client.createPlant(PLANT), { name: 'Fern' });
    assert.equal(calls, 3);
    const always = createPlantClient({
      baseUrl: 'http://127.0.0.1:1',
      token: TOKEN,
      retry: FAST,
      fetch: () => {
        throw thrown;
      },
    });
    await assert.rejects(always.createPlant(PLANT), { code: 'ERR_NETWORK', cause: thrown });
  });

  it('waits at least what Retry-After asks, given in seconds or as an HTTP date', async () => {
    // The date is written when its case runs: written before the first case's wait, and cut to
    // the second, it could already be past when read.
    for (const [header, least] of [
      [() => '1', 1000],
      [() => new Date(Date.now() + 2000).toUTCString(), 1000],
      // A server shedding load may send the obsolete forms, which RFC 9110 §5.6.7 says to read.
      [() => asctime(new Date(Date.now() + 2000)), 1000],
    ] as const) {
      const value = header();
      const { client, requests } = clientOf(
        [errorAnswer(503, { 'retry-after': value }), plantAnswer()],
        {
          retry: { ...FAST, maxDelayMs: 5000 },
        },
      );
      const started = performance.now();
      await withDeadline(client.createPlant(PLANT), `Retry-After ${value}`);
      const waited = performance.now() - started;
      assert.ok(waited >= least, `waited ${waited} ms for Retry-After ${value}`);
      assert.equal(requests.length, 2);
    }
  });

  it('rejects at once with the answer when Retry-After asks for more than the longest wait', async () => {
    const far = new Date(Date.now() + 86_400_000);
    for (const [value, seconds] of [
      ['3600', 3600],
      [far.toUTCString(), 86_400],
      [rfc850(far), 86_400],
      [asctime(far), 86_400],
    ] as const) {
      const { client, requests } = clientOf([
        errorAnswer(503, { 'retry-after': value }),
        plantAnswer(),
      ]);
      const error = await withDeadline(
        client.createPlant(PLANT).catch((e: unknown) => e),
        value,
        1000,
      );
      assert.ok(error instanceof PlantClientError, String(error));
      assert.ok(Math.abs((error.retryAfter ?? 0) - seconds) <= 2, `${value}: ${error.retryAfter}`);
      assert.equal(requests.length, 1, value);
    }
  });

  it('reads a two-digit year as the one within 50 years from now, never further ahead', async () => {
    const year = new Date().getUTCFullYear();
    for (const [ahead, read] of [
      [40, 40],
      [60, -40],
      [99, -1],
    ] as const) {
      // An hour ahead in whole seconds, as an HTTP date holds it, then moved by whole years.
      const sent = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
      sent.setUTCFullYear(year + ahead);
      const meant = new Date(sent);
      meant.setUTCFullYear(year + read);
      const { client } = clientOf([errorAnswer(503, { 'retry-after': rfc850(sent) })], {
        retry: false,
      });
      const error = await client.createPlant(PLANT).catch((e: unknown) => e);
      assert.ok(error instanceof PlantClientError, String(error));
      const seconds = Math.max(0, Math.ceil((meant.getTime() - Date.now()) / 1000));
      assert.ok(
        Math.abs((error.retryAfter ?? -9) - seconds) <= 2,
        `${rfc850(sent)} read as ${error.retryAfter} s, not ${seconds} s`,
      );
    }
  });

  it('ignores a Retry-After it cannot read and retries on its own backoff', async () => {
    // Each would ask for a long wait (the dates are decades ahead) if it were read.
    for (const value of [
      'soon',
      '-1',
      '1.5',
      '',
      '5 seconds',
      '5s',
      '+5',
      '0x10',
      'Sun, 06 Nov 2094 08:49:37',
      'Sun, 06 Nov 2094 08:49:37 UTC',
      'Sun, 06 Nov 2094 08:49:37 +0100 GMT',
      'Sunday, 06-Nov-60 08:49:37 PST',
      'Sat Nov  6 08:49:37 2094 GMT',
      'Nov 6 2094 GMT',
      '2094-11-06T08:49:37Z',
    ]) {
      const { client, requests } = clientOf([
        errorAnswer(503, { 'retry-after': value }),
        errorAnswer(400),
      ]);
      const error = await withDeadline(
        client.createPlant(PLANT).catch((e: unknown) => e),
        value,
        1000,
      );
      assert.ok(error instanceof PlantClientError, String(error));
      assert.equal(error.status, 400, `Retry-After ${JSON.stringify(value)} was read`);
      assert.equal(requests.length, 2, `Retry-After ${JSON.stringify(value)}`);
    }
    const past = clientOf([errorAnswer(503, { 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT' })], {
      retry: false,
    });
    await assert.rejects(past.client.createPlant(PLANT), { retryAfter: 0 });
  });

  it('rejects with a timeout error when the deadline passes while fetch hangs', async () => {
    const { client, requests } = clientOf([errorAnswer(503), hangs], { timeoutMs: 200 });
    const started = performance.now();
    const error = await withDeadline(
      client.createPlant(PLANT).catch((e: unknown) => e),
      'the deadline',
    );
    assert.ok(error instanceof PlantClientError);
    assert.equal(error.code, 'ERR_CLIENT_TIMEOUT');
    assert.equal(requests.length, 2);
    assert.ok(
      error.cause instanceof PlantClientError && error.cause.status === 503,
      'the failure before is its cause',
    );
    assert.ok(performance.now() - started < 1000);
  });

  it('rejects at once with the last answer when the next wait would end past the deadline', async () => {
    const { client, requests } = clientOf([errorAnswer(503, { 'retry-after': '2' })], {
      timeoutMs: 1000,
      retry: { ...FAST, maxDelayMs: 5000 },
    });
    const started = performance.now();
    await assert.rejects(client.createPlant(PLANT), { status: 503, retryAfter: 2 });
    assert.ok(performance.now() - started < 500);
    assert.equal(requests.length, 1);
  });

  it('rejects with the reason and sends nothing when the signal is already aborted', async () => {
    const { client, requests } = clientOf([plantAnswer()]);
    const reason = new Error('the user left');
    await assert.rejects(
      client.createPlant(PLANT, { signal: AbortSignal.abort(reason) }),
      (e) => e === reason,
    );
    assert.equal(requests.length, 0);
  });

  it('rejects with the reason at once, and aborts the attempt, when the caller aborts during a fetch that ignores its signal', async () => {
    const { client, requests } = clientOf([hangs]);
    const controller = new AbortController();
    const pending = client.createPlant(PLANT, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reason = new Error('cancelled');
    controller.abort(reason);
    await withDeadline(
      assert.rejects(pending, (e) => e === reason),
      'the abort',
    );
    assert.equal(requests.length, 1);
    assert.equal(requests[0]?.request.signal.aborted, true, "the attempt's signal did not follow");
    assert.equal(requests[0]?.request.signal.reason, reason);
  });

  it('stops retrying at once when the caller aborts during a wait', async () => {
    const { client, requests } = clientOf([errorAnswer(503, { 'retry-after': '5' })], {
      retry: { ...FAST, maxDelayMs: 10_000 },
    });
    const controller = new AbortController();
    const pending = client.createPlant(PLANT, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await withDeadline(
      assert.rejects(pending, { name: 'AbortError' }),
      'the abort during the wait',
      1000,
    );
    assert.equal(requests.length, 1);
  });

  it('stops waiting for a token function when the caller aborts', async () => {
    const { fetch, requests } = scriptedFetch(plantAnswer());
    const client = createPlantClient({
      baseUrl: 'http://127.0.0.1:1',
      token: () => new Promise<string>(() => {}),
      fetch,
    });
    const reason = new Error('gone');
    const controller = new AbortController();
    const pending = client.createPlant(PLANT, { signal: controller.signal });
    controller.abort(reason);
    await withDeadline(
      assert.rejects(pending, (e) => e === reason),
      'the abort',
      1000,
    );
    assert.equal(requests.length, 0);
  });
});
