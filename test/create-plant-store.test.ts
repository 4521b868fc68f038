import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
  type NewPlant,
  openApiDocument,
  PlantApiError,
  type PlantRepository,
  type PlantRepositoryContext,
} from '../lib/index.ts';
import {
  countingStream,
  endlessChunks,
  never,
  plantRequest,
  recordingRepository,
  send,
  TOKEN,
  testStore,
} from './_fakes.ts';

const encoder = new TextEncoder();
const json = (value: unknown) => JSON.stringify(value);

/** The plant the repository was asked to store by its one call. */
function storedBy(repository: ReturnType<typeof recordingRepository>): NewPlant {
  assert.equal(repository.create.mock.callCount(), 1);
  return repository.create.mock.calls[0]?.arguments[0] as NewPlant;
}

describe('createPlantStore', () => {
  it('throws a TypeError when no verifier is given', () => {
    assert.throws(() => createPlantStore({} as never), {
      name: 'TypeError',
      message: /needs a verifier/,
    });
  });

  it('throws a TypeError when an option is out of range', () => {
    const verifier = createStaticTokenVerifier(['t']);
    for (const options of [
      { maxBodyBytes: 0 },
      { maxBodyBytes: 1.5 },
      { timeoutMs: 0 },
      { timeoutMs: Number.POSITIVE_INFINITY },
      { timeoutMs: 2 ** 31 },
      { repository: {} as PlantRepository },
      { onError: 'log' as never },
    ]) {
      assert.throws(() => createPlantStore({ verifier, ...options }), TypeError, json(options));
    }
  });

  it('stores in memory by default', async () => {
    const store = createPlantStore({ verifier: createStaticTokenVerifier([TOKEN]) });
    const first = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const conflict = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'b' })));
    assert.equal(first.status, 200);
    assert.equal(conflict.status, 409);
  });
});

describe('handleCreatePlant: 1. method', () => {
  for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    it(`answers 405 with Allow: POST to ${method}, before authentication`, async () => {
      const { store, repository } = testStore();
      const request = new Request('http://localhost/plants', { method });
      const response = await store.handleCreatePlant(request);
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(response.headers.get('content-type'), 'application/json');
      if (method !== 'HEAD') {
        assert.deepEqual(await response.json(), { error: 405, message: 'method not allowed' });
      }
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }
});

describe('handleCreatePlant: 2. authentication', () => {
  const realm = 'Bearer realm="plant-store"';
  const malformed = {
    missing: undefined,
    'another scheme': `Basic ${TOKEN}`,
    'no token': 'Bearer',
    'no space': `Bearer${TOKEN}`,
    'two tokens': `Bearer ${TOKEN} ${TOKEN}`,
    'a token outside b64token': 'Bearer tök',
    'padding inside the token': 'Bearer ab=cd',
    'a comma': `Bearer ${TOKEN},`,
    'a tab for the space': `Bearer\t${TOKEN}`,
  };
  for (const [name, authorization] of Object.entries(malformed)) {
    it(`answers 401 with the bare challenge when the header has ${name}`, async () => {
      const repository = recordingRepository();
      const verify = mock.fn(() => ({ valid: true as const }));
      const guarded = createPlantStore({ verifier: { verify }, repository });
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers.authorization = authorization;
      const request = new Request('http://localhost/plants', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: json({ id: 1, name: 'a' }),
      });
      const response = await send(guarded.handleCreatePlant, request);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), realm);
      assert.deepEqual(response.body, { error: 401, message: 'a bearer token is required' });
      assert.equal(verify.mock.callCount(), 0, 'a malformed header never reaches the verifier');
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  it('accepts the scheme in any case and with several spaces', async () => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER   ${TOKEN}`, `bEaReR ${TOKEN}`]) {
      const { store } = testStore();
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { authorization }),
      );
      assert.equal(response.status, 200, authorization);
    }
  });

  it('answers 401 with error="invalid_token" when the verifier rejects a well-formed token', async () => {
    const { store, repository } = testStore();
    const response = await send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { authorization: 'Bearer wrong-token' }),
    );
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), `${realm}, error="invalid_token"`);
    assert.deepEqual(response.body, { error: 401, message: 'the bearer token is not valid' });
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('never reads the body when the token is missing or rejected', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', 'Basic abc']) {
      const { store, repository } = testStore();
      const { stream, state } = countingStream([encoder.encode(json({ id: 1, name: 'a' }))]);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const request = new Request('http://localhost/plants', {
        method: 'POST',
        headers,
        body: stream,
        duplex: 'half',
      } as RequestInit);
      const response = await send(store.handleCreatePlant, request);
      assert.equal(response.status, 401);
      assert.equal(state.pulled, 0, 'no byte of the body was pulled');
      assert.equal(request.bodyUsed, false);
      assert.equal(repository.create.mock.callCount(), 0);
    }
  });

  it('answers 401 before looking at the body, even when the body is also wrong', async () => {
    const { store } = testStore();
    const response = await send(
      store.handleCreatePlant,
      plantRequest(null, { authorization: 'Bearer nope', 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 401);
  });

  it('passes the token and a signal to the verifier', async () => {
    const verify = mock.fn((_token: string, _context: { signal: AbortSignal }) => ({
      valid: true as const,
    }));
    const store = createPlantStore({ verifier: { verify } });
    await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const [token, context] = verify.mock.calls[0]?.arguments ?? [];
    assert.equal(token, TOKEN);
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('accepts an async verifier and hands its principal to the repository', async () => {
    const repository = recordingRepository();
    const principal = { sub: 'gardener-7' };
    const store = createPlantStore({
      repository,
      verifier: { verify: async () => ({ valid: true, principal }) },
    });
    const response = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(response.status, 200);
    const context = repository.create.mock.calls[0]?.arguments[1] as PlantRepositoryContext;
    assert.equal(context.principal, principal);
  });

  it('fails closed: a verdict that is not { valid: true } is a 401', async () => {
    for (const verdict of [undefined, null, true, { valid: 'yes' }, {}]) {
      const repository = recordingRepository();
      const store = createPlantStore({ repository, verifier: { verify: () => verdict as never } });
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 401, json(verdict));
      assert.equal(repository.create.mock.callCount(), 0);
    }
  });

  it('answers 500 and reports the error when the verifier throws, never letting the request through', async () => {
    for (const verify of [
      () => {
        throw new Error('key server down at 10.0.0.7');
      },
      () => Promise.reject(new Error('key server down at 10.0.0.7')),
    ]) {
      const { store, repository, onError } = testStore({ verifier: { verify } });
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.mock.callCount(), 1);
      assert.match(String(onError.mock.calls[0]?.arguments[0]), /key server down/);
      assert.equal(repository.create.mock.callCount(), 0);
    }
  });
});

describe('handleCreatePlant: 3. body present', () => {
  it('answers 400 "request body is required" when there is no body', async () => {
    const { store, repository } = testStore();
    const response = await send(store.handleCreatePlant, plantRequest(null));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('answers 400 when Content-Length is 0, without reading', async () => {
    const { store } = testStore();
    const { stream, state } = countingStream([encoder.encode('{}')]);
    const response = await send(
      store.handleCreatePlant,
      plantRequest(stream, { 'content-length': '0' }),
    );
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
    assert.equal(state.pulled, 0);
  });

  it('answers 400 when a streamed body turns out empty', async () => {
    const { store, repository } = testStore();
    const { stream } = countingStream([new Uint8Array(0)]);
    const response = await send(store.handleCreatePlant, plantRequest(stream));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('checks presence before the media type', async () => {
    const { store } = testStore();
    const response = await send(
      store.handleCreatePlant,
      plantRequest(null, { 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 400);
  });
});

describe('handleCreatePlant: 4. media type', () => {
  const accepted = [
    'application/json',
    'APPLICATION/JSON',
    'Application/Json ; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=utf-8; profile=plant',
    'application/json;',
  ];
  const refused = [
    'text/plain',
    'text/json',
    'application/jsonx',
    'application/json-patch+json',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=utf8',
    'application/json; x',
    '',
  ];
  for (const contentType of accepted) {
    it(`accepts Content-Type: ${contentType}`, async () => {
      const { store } = testStore();
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 200);
    });
  }
  for (const contentType of refused) {
    it(`answers 415 to Content-Type: ${JSON.stringify(contentType)}`, async () => {
      const { store, repository } = testStore();
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 415);
      assert.deepEqual(response.body, {
        error: 415,
        message: 'content type must be application/json (charset utf-8, if given)',
      });
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  it('answers 415 when there is no Content-Type at all', async () => {
    const { store } = testStore();
    const body = encoder.encode(json({ id: 1, name: 'a' })); // bytes get no default type
    const request = new Request('http://localhost/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body,
    });
    assert.equal(request.headers.get('content-type'), null);
    const response = await send(store.handleCreatePlant, request);
    assert.equal(response.status, 415);
  });

  it('checks the media type before the size', async () => {
    const { store } = testStore({ maxBodyBytes: 10 });
    const response = await send(
      store.handleCreatePlant,
      plantRequest('x'.repeat(100), { 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 415);
  });
});

describe('handleCreatePlant: 5. size', () => {
  const tooLarge = { error: 413, message: 'request body is larger than 102400 bytes' };

  it('answers 413 to a Content-Length over the limit without reading the body', async () => {
    const { store, repository } = testStore();
    const { stream, state } = countingStream(endlessChunks(1024));
    const response = await send(
      store.handleCreatePlant,
      plantRequest(stream, { 'content-length': '102401' }),
    );
    assert.equal(response.status, 413);
    assert.deepEqual(response.body, tooLarge);
    assert.equal(state.pulled, 0);
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('answers 413 to a streamed body over the limit and stops reading at the limit', async () => {
    const { store, repository } = testStore();
    const { stream, state } = countingStream(endlessChunks(4096));
    const response = await send(store.handleCreatePlant, plantRequest(stream));
    assert.equal(response.status, 413);
    assert.deepEqual(response.body, tooLarge);
    assert.ok(state.pulled <= 102_400 + 4096, `pulled ${state.pulled} bytes`);
    assert.equal(state.cancelled, true, 'the rest of the stream is cancelled');
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('accepts a body of exactly maxBodyBytes and refuses one byte more', async () => {
    const { store } = testStore({ maxBodyBytes: 64 });
    const plant = json({ id: 1, name: 'a' });
    const exact = plant.padEnd(64, ' ');
    const ok = await send(store.handleCreatePlant, plantRequest(exact));
    assert.equal(ok.status, 200);
    const over = await send(store.handleCreatePlant, plantRequest(`${exact} `));
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { error: 413, message: 'request body is larger than 64 bytes' });
  });

  it('does not trust a Content-Length under the limit: a longer stream is still cut at the limit', async () => {
    const { store, repository } = testStore({ maxBodyBytes: 1000 });
    const { stream, state } = countingStream(endlessChunks(100));
    const response = await send(
      store.handleCreatePlant,
      plantRequest(stream, { 'content-length': '10' }),
    );
    assert.equal(response.status, 413);
    assert.ok(state.pulled <= 1100, `pulled ${state.pulled} bytes`);
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('reads a body that arrives in many chunks, a character split across two', async () => {
    const { store, repository } = testStore();
    const bytes = encoder.encode(json({ id: 3, name: 'a€b', tag: 'tag' }));
    const split = bytes.indexOf(0xe2) + 1; // inside the three bytes of €
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, split), bytes.subarray(split)];
    const { stream } = countingStream(chunks);
    const response = await send(store.handleCreatePlant, plantRequest(stream));
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 3n, name: 'a€b', tag: 'tag' });
  });

  it('counts bytes, not characters', async () => {
    const { store } = testStore({ maxBodyBytes: 40 });
    // 30 characters, but the name is 10 × 3 bytes: 50 bytes.
    const response = await send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: '€'.repeat(10) })),
    );
    assert.equal(response.status, 413);
  });
});

describe('handleCreatePlant: 6. decoding', () => {
  const invalidUtf8 = {
    'a lone continuation byte': [0x80],
    'an 0xFF byte': [0xff],
    'an overlong encoding of "/"': [0xc0, 0xaf],
    'an encoded surrogate': [0xed, 0xa0, 0x80],
    'a truncated sequence': [0xe2, 0x82],
  };
  for (const [name, bytes] of Object.entries(invalidUtf8)) {
    it(`answers 400 to ${name} inside a string, never replacing it`, async () => {
      const { store, repository } = testStore();
      const body = new Uint8Array([
        ...encoder.encode('{"id":1,"name":"a'),
        ...bytes,
        ...encoder.encode('"}'),
      ]);
      const response = await send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is not valid UTF-8' });
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  it('skips a byte order mark at the start of the body but keeps U+FEFF inside a string', async () => {
    const { store, repository } = testStore();
    const body = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode(json({ id: 1, name: '\ufeffa' })),
    ]);
    const response = await send(store.handleCreatePlant, plantRequest(body));
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).name, '\ufeffa');
  });

  it('keeps multi-byte UTF-8 exactly', async () => {
    const { store, repository } = testStore();
    const name = 'Ficus 🌿 µ 漢字 é';
    const response = await send(
      store.handleCreatePlant,
      plantRequest(encoder.encode(json({ id: 1, name }))),
    );
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).name, name);
  });

  const invalidJson = [
    '{',
    '{"id":1,"name":"a"',
    '{"id":1,}',
    "{'id':1}",
    '{"id":01,"name":"a"}',
    '   ',
    '{"id":1,"name":"a"}x',
    'NaN',
    '{"id":NaN,"name":"a"}',
    '{"id":+1,"name":"a"}',
    '{"id":.5,"name":"a"}',
    '{"id":1,"name":"a\tb"}',
  ];
  for (const body of invalidJson) {
    it(`answers 400 with a message saying what is wrong to ${JSON.stringify(body)}`, async () => {
      const { store, repository } = testStore();
      const response = await send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      const { message } = response.body as { message: string };
      assert.match(message, /^request body is not valid JSON: \S/);
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }
});

describe('handleCreatePlant: 7. shape', () => {
  async function create(body: string, store = testStore()) {
    const response = await send(store.store.handleCreatePlant, plantRequest(body));
    return { response, ...store };
  }

  for (const body of ['[]', '[{"id":1,"name":"a"}]', '"plant"', '42', 'null', 'true']) {
    it(`answers 400 when the top level is ${body}, not an object`, async () => {
      const { response, repository } = await create(body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'request body must be a JSON object',
      });
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  const exactIds: Array<[string, bigint]> = [
    ['0', 0n],
    ['-0', 0n],
    ['-0.0e5', 0n],
    ['1.0', 1n],
    ['1e2', 100n],
    ['1E+2', 100n],
    ['10e-1', 1n],
    ['100e-2', 1n],
    ['0.5e1', 5n],
    ['12.50e1', 125n],
    ['9007199254740993', 9_007_199_254_740_993n],
    ['-9007199254740993', -9_007_199_254_740_993n],
    ['9223372036854775807', 9_223_372_036_854_775_807n],
    ['-9223372036854775808', -9_223_372_036_854_775_808n],
    ['9223372036854775807.000', 9_223_372_036_854_775_807n],
    ['922337203685477580.7e1', 9_223_372_036_854_775_807n],
    ['0.0000000000000000000000000000001e31', 1n],
  ];
  for (const [literal, id] of exactIds) {
    it(`stores id ${literal} exactly as ${id}`, async () => {
      const { response, repository } = await create(`{"id":${literal},"name":"a"}`);
      assert.equal(response.status, 200);
      assert.equal(storedBy(repository).id, id);
    });
  }

  const badIds = [
    '1.5',
    '1.0000000000000001',
    '0.1',
    '-1e-1',
    '1e-400',
    '9223372036854775808',
    '-9223372036854775809',
    '1e19',
    '1e400',
    '1e99999999999999999999',
    '"1"',
    'null',
    'true',
    '[1]',
    '{"value":1}',
  ];
  for (const literal of badIds) {
    it(`answers 400 naming id when id is ${literal}`, async () => {
      const { response, repository } = await create(`{"id":${literal},"name":"a"}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
      });
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  const badFields: Array<[string, string]> = [
    ['{"name":"a"}', 'id is required'],
    ['{"id":1}', 'name is required'],
    ['{"id":1,"name":null}', 'name must be a string'],
    ['{"id":1,"name":7}', 'name must be a string'],
    ['{"id":1,"name":["a"]}', 'name must be a string'],
    ['{"id":1,"name":"a","tag":null}', 'tag must be a string'],
    ['{"id":1,"name":"a","tag":false}', 'tag must be a string'],
    ['{"id":1,"name":"a\\u0000b"}', 'name must not contain U+0000'],
    ['{"id":1,"name":"a","tag":"\\u0000"}', 'tag must not contain U+0000'],
    ['{"id":1,"name":"\\ud800"}', 'name must be well-formed Unicode (no lone surrogates)'],
    ['{"id":1,"name":"a\\udfffb"}', 'name must be well-formed Unicode (no lone surrogates)'],
    ['{"id":1,"name":"a","tag":"\\udbff"}', 'tag must be well-formed Unicode (no lone surrogates)'],
    ['{"name":7}', 'id is required'],
  ];
  for (const [body, message] of badFields) {
    it(`answers 400 "${message}" to ${body}`, async () => {
      const { response, repository } = await create(body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message });
      assert.equal(repository.create.mock.callCount(), 0);
    });
  }

  it('stores the empty string, escapes and astral characters exactly', async () => {
    for (const [name, tag] of [
      ['', ''],
      ['"quoted" \\ back/slash', '\u2028\n\t'],
      ['🌵\ud83c\udf35', 'e\u0301'],
    ]) {
      const { response, repository } = await create(json({ id: 1, name, tag }));
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { name, tag });
      assert.deepEqual(storedBy(repository), { id: 1n, name, tag });
    }
  });

  it('ignores and does not store fields it does not declare', async () => {
    const { response, repository } = await create(
      '{"id":1,"name":"a","extra":{"id":"x","name":"b"},"price":1e400,"owner":null}',
    );
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { name: 'a' });
    assert.deepEqual(Object.keys(storedBy(repository)).sort(), ['id', 'name']);
  });

  it('survives nesting as deep as the size limit allows in an ignored field', async () => {
    const depth = 50_000;
    const body = `{"id":1,"name":"a","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const { response, repository } = await create(body);
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).id, 1n);
  });

  it('is not fooled by __proto__ and constructor keys', async () => {
    const body = '{"__proto__":{"name":"evil","tag":"x"},"constructor":{"id":2},"id":1,"name":"a"}';
    const { response, repository } = await create(body);
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 1n, name: 'a' });
    assert.equal(({} as Record<string, unknown>).name, undefined, 'no prototype was polluted');
  });

  it('does not take a name or tag from the prototype chain', async () => {
    const { response } = await create('{"id":1,"__proto__":{"name":"inherited"}}');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'name is required' });
  });

  it('takes the last of a duplicated key, as JSON.parse does', async () => {
    const { repository } = await create(
      '{"id":1.5,"name":"a","id":2,"name":"b","tag":"x","tag":"y"}',
    );
    assert.deepEqual(storedBy(repository), { id: 2n, name: 'b', tag: 'y' });
    const rejected = await create('{"id":2,"name":"a","id":2.5}');
    assert.equal(rejected.response.status, 400);
  });

  it('reads only the top-level id, whatever nested values and strings hold', async () => {
    const bodies: Array<[string, bigint]> = [
      ['{"x":{"id":1.5},"id":3,"name":"a"}', 3n],
      ['{"id":3,"x":{"id":1.5},"y":[{"id":9.5}],"name":"a"}', 3n],
      ['{"note":"\\"id\\":1.5,","id":4,"name":"\\"id\\": 2.5"}', 4n],
      ['{"a\\\\":"}","id" : \n 5 ,"name":"a"}', 5n],
      ['{"\\u0069d":6,"name":"a"}', 6n],
      ['{"id":7,"\\u0069d":9223372036854775807,"name":"a"}', 9_223_372_036_854_775_807n],
      ['{ "name" : "a" , "id" :\t-8 }', -8n],
    ];
    for (const [body, id] of bodies) {
      const { response, repository } = await create(body);
      assert.equal(response.status, 200, body);
      assert.equal(storedBy(repository).id, id, body);
    }
  });

  it('treats every spelling of one id as that id', async () => {
    const store = testStore();
    for (const literal of ['1', '1.0', '1e0', '10e-1', '0.1e1']) {
      const { response } = await create(`{"id":${literal},"name":"a"}`, store);
      assert.equal(response.status, 200, literal);
    }
    const { response } = await create('{"id":1e0,"name":"b"}', store);
    assert.equal(response.status, 409);
    await create('{"id":-0,"name":"zero"}', store);
    assert.equal((await create('{"id":0,"name":"zero"}', store)).response.status, 200);
    assert.equal((await create('{"id":0,"name":"other"}', store)).response.status, 409);
  });
});

describe('handleCreatePlant: 8. store', () => {
  it('answers 200 with exactly name and tag, and hands the repository a bigint id', async () => {
    const { store, repository } = testStore();
    const response = await send(
      store.handleCreatePlant,
      plantRequest(json({ id: 42, name: 'Monstera', tag: 'aroid' })),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.body, { name: 'Monstera', tag: 'aroid' });
    const [plant, context] = repository.create.mock.calls[0]?.arguments ?? [];
    assert.deepEqual(plant, { id: 42n, name: 'Monstera', tag: 'aroid' });
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('omits tag from the response when none was given', async () => {
    const { store } = testStore();
    const response = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.deepEqual(response.body, { name: 'a' });
  });

  it('answers 200 again and changes nothing when the same plant is sent again', async () => {
    const memory = createMemoryRepository();
    const { store } = testStore({ repository: memory });
    const body = json({ id: 7, name: 'Fern', tag: 'fern' });
    const first = await send(store.handleCreatePlant, plantRequest(body));
    const again = await send(store.handleCreatePlant, plantRequest(body));
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { name: 'Fern', tag: 'fern' });
    const outcome = await memory.create(
      { id: 7n, name: 'probe' },
      { signal: AbortSignal.timeout(1000) },
    );
    assert.deepEqual(outcome, { created: false, existing: { name: 'Fern', tag: 'fern' } });
  });

  it('treats a stored null tag as no tag when replaying', async () => {
    const repository: PlantRepository = {
      create: async () => ({ created: false, existing: { name: 'a', tag: null as never } }),
    };
    const { store } = testStore({ repository });
    const replay = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(replay.status, 200);
    const other = await send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a', tag: '' })),
    );
    assert.equal(other.status, 409);
  });

  for (const [what, second] of [
    ['name', { id: 7, name: 'Other', tag: 'fern' }],
    ['tag', { id: 7, name: 'Fern', tag: 'other' }],
    ['absent tag', { id: 7, name: 'Fern' }],
    ['empty tag', { id: 7, name: 'Fern', tag: '' }],
  ] as const) {
    it(`answers 409 and keeps the stored plant when the ${what} differs`, async () => {
      const memory = createMemoryRepository();
      const { store } = testStore({ repository: memory });
      await send(store.handleCreatePlant, plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })));
      const response = await send(store.handleCreatePlant, plantRequest(json(second)));
      assert.equal(response.status, 409);
      assert.deepEqual(response.body, {
        error: 409,
        message: 'a different plant is already stored under this id',
      });
      const replay = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })),
      );
      assert.equal(replay.status, 200, 'the first plant is still stored');
    });
  }

  it('answers 500 "internal error" and reports the detail when the repository throws', async () => {
    const secret = new Error('relation "plants" does not exist at pg-pool 10.0.0.7');
    for (const create of [
      () => Promise.reject(secret),
      () => {
        throw secret;
      },
    ]) {
      const { store, onError } = testStore({ repository: { create } });
      const response = await send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.mock.callCount(), 1);
      assert.equal(onError.mock.calls[0]?.arguments[0], secret);
    }
  });

  it('still answers 500 when onError itself throws', async () => {
    const store = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      repository: { create: () => Promise.reject(new Error('down')) },
      onError: () => {
        throw new Error('logger broken');
      },
    });
    const response = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(response.status, 500);
  });

  it('answers 503 at the deadline, aborts the repository signal, and keeps serving others', async () => {
    let seen: AbortSignal | undefined;
    const memory = createMemoryRepository();
    const repository: PlantRepository = {
      create(plant, context) {
        if (plant.id === 1n) {
          seen = context.signal;
          return never();
        }
        return memory.create(plant, context);
      },
    };
    const { store, onError } = testStore({ repository, timeoutMs: 100 });
    const started = Date.now();
    const hung = send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'hung' })));
    const other = await send(store.handleCreatePlant, plantRequest(json({ id: 2, name: 'ok' })));
    assert.equal(other.status, 200, 'another request is served while one hangs');
    const response = await hung;
    assert.equal(response.status, 503);
    assert.deepEqual(response.body, {
      error: 503,
      message: 'the request timed out; retrying it is safe',
    });
    assert.ok(Date.now() - started >= 90, 'not before the deadline');
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof PlantApiError);
    assert.equal(seen?.reason.code, 'ERR_TIMEOUT');
    assert.equal(onError.mock.callCount(), 0, 'a deadline is not an internal error');
  });

  it('answers 503 when the verifier hangs past the deadline', async () => {
    const { store, repository } = testStore({ verifier: { verify: never }, timeoutMs: 50 });
    const response = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(response.status, 503);
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('aborts the repository signal when the client goes away, without reporting an error', async () => {
    const client = new AbortController();
    let seen: AbortSignal | undefined;
    const repository: PlantRepository = {
      create(_plant, context) {
        seen = context.signal;
        client.abort();
        return new Promise((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(context.signal.reason)),
        );
      },
    };
    const { store, onError } = testStore({ repository });
    const response = await store.handleCreatePlant(
      plantRequest(json({ id: 1, name: 'a' }), {}, { signal: client.signal }),
    );
    assert.equal(seen?.aborted, true);
    assert.equal(response.status, 503);
    assert.equal(onError.mock.callCount(), 0);
  });

  it('answers 503 and never calls the repository when the client is already gone', async () => {
    const { store, repository, onError } = testStore();
    const response = await send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), {}, { signal: AbortSignal.abort() }),
    );
    assert.equal(response.status, 503);
    await new Promise((resolve) => setTimeout(resolve, 20)); // let any late work surface
    assert.equal(repository.create.mock.callCount(), 0);
    assert.equal(onError.mock.callCount(), 0);
  });

  it('does not call the repository after the deadline passed during a slow verify', async () => {
    const { store, repository } = testStore({
      timeoutMs: 30,
      verifier: {
        verify: () => new Promise((resolve) => setTimeout(() => resolve({ valid: true }), 80)),
      },
    });
    const response = await send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(response.status, 503);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('stores exactly one content when many creates of one id race', async () => {
    const memory = createMemoryRepository();
    const { store } = testStore({ repository: memory });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        send(store.handleCreatePlant, plantRequest(json({ id: 99, name: `plant-${i}` }))),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    assert.equal(winners.length, 1);
    assert.equal(responses.filter((response) => response.status === 409).length, 99);
    const outcome = await memory.create(
      { id: 99n, name: '?' },
      { signal: new AbortController().signal },
    );
    assert.equal(outcome.created, false);
    assert.deepEqual(
      outcome.created ? undefined : { name: outcome.existing.name },
      winners[0]?.body,
    );
  });

  it('answers 200 to every one of many identical concurrent creates', async () => {
    const { store } = testStore();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        send(store.handleCreatePlant, plantRequest(json({ id: 5, name: 'same' }))),
      ),
    );
    assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([200]));
  });

  it('does not route on the path: a host may mount it anywhere', async () => {
    const { store } = testStore();
    const request = new Request('http://localhost/api/v2/create-a-plant?x=1', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: json({ id: 1, name: 'a' }),
    });
    assert.equal((await send(store.handleCreatePlant, request)).status, 200);
  });
});

describe('fetch', () => {
  it('routes POST /plants to the operation, query string or not', async () => {
    const { store } = testStore();
    for (const url of ['http://localhost/plants', 'http://localhost/plants?dry=1']) {
      const request = new Request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: json({ id: 1, name: 'a' }),
      });
      assert.equal((await send(store.fetch, request)).status, 200);
    }
  });

  it('answers 405 with Allow: POST to other methods on /plants, without a token', async () => {
    const { store } = testStore();
    const response = await send(
      store.fetch,
      new Request('http://localhost/plants', { method: 'GET' }),
      'MethodNotAllowed',
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });

  it('serves the OpenAPI document at GET /openapi.json without a token', async () => {
    const { store } = testStore();
    const response = await store.fetch(new Request('http://localhost/openapi.json'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('answers HEAD /openapi.json with no body', async () => {
    const { store } = testStore();
    const response = await store.fetch(
      new Request('http://localhost/openapi.json', { method: 'HEAD' }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.body, null);
  });

  it('answers 405 with Allow: GET, HEAD to other methods on /openapi.json', async () => {
    const { store } = testStore();
    const response = await send(
      store.fetch,
      new Request('http://localhost/openapi.json', { method: 'POST', body: '{}' }),
      'MethodNotAllowed',
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD');
  });

  it('answers 404 with the Error body to any other path, without a token', async () => {
    const { store, repository } = testStore();
    for (const path of ['/', '/plants/', '/plants/1', '/Plants', '/openapi.yaml', '/%70lants']) {
      const response = await send(
        store.fetch,
        new Request(`http://localhost${path}`, { method: 'POST', body: '{}' }),
        'NotFound',
      );
      assert.equal(response.status, 404, path);
      assert.deepEqual(response.body, { error: 404, message: 'not found' });
    }
    assert.equal(repository.create.mock.callCount(), 0);
  });
});
