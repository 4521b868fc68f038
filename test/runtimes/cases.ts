/**
 * The behaviour contract as one runtime-neutral case list: every rule of `POST /plants` and of
 * `fetch`'s routes, with the assertions `node:test` runs on Node 20 (`create-plant-store.test.ts`
 * wraps each case in an `it`) and the plain runners run on Node 22 and 24, Deno and Bun
 * (`node.ts`, `deno.ts`, `bun.ts` beside this file).
 *
 * The list takes the library as an argument (the source or the built `dist/`), and each request
 * goes through a transport: a direct call of the handler, or a real HTTP round trip to a server
 * that serves it (`Deno.serve`, `Bun.serve`, `plant-store/node`). A case that watches what
 * only an in-process caller can see (the request's body stream or signal, a header a client may
 * not set) says so in `directOnly` and is skipped over HTTP. Every response a case sees is
 * validated against the OpenAPI document. No tsx, c8 or `node:test` here: `node:assert/strict`
 * is the one built-in, and Deno and Bun provide it.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type * as CorsModule from '../../lib/cors.ts';
import type * as PlantStoreModule from '../../lib/index.ts';
import type {
  CreatePlantOutcome,
  CreatePlantStoreOptions,
  NewPlant,
  PlantRepository,
  PlantRepositoryContext,
  PlantStore,
} from '../../lib/index.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import {
  countingStream,
  type DeclaredAt,
  endlessChunks,
  never,
  plantRequest,
  type SeenResponse,
  type Spy,
  spy,
  TOKEN,
} from '../support/web-fakes.ts';

/**
 * The library under test: `lib/` or the built `dist/`, which export the same; the core entry
 * and the CORS subpath, as one object.
 */
export type PlantStoreLibrary = typeof PlantStoreModule & typeof CorsModule;

/** A web-standard handler, as `store.fetch` and `store.handleCreatePlant` are. */
export type Handler = (request: Request) => Promise<Response>;

/** Delivers a request to a handler and hands back the response the caller gets. */
export type Transport = (handler: Handler, request: Request) => Promise<Response>;

/** A repository whose `create` records its calls. */
export interface RecordingRepository extends PlantRepository {
  /** The recorded `create`: `create.calls[i]` holds the plant and context of call `i`. */
  readonly create: Spy<
    [NewPlant, PlantRepositoryContext],
    CreatePlantOutcome | Promise<CreatePlantOutcome>
  >;
}

/** What a case gets: the library, the transport, and helpers built on both. */
export interface CaseContext {
  /** The library under test. */
  readonly lib: PlantStoreLibrary;
  /** Delivers a request and returns the raw response, unchecked. */
  readonly deliver: Transport;
  /** Delivers a request and returns the response once it has been checked against the OpenAPI document. */
  readonly send: (handler: Handler, request: Request, where?: DeclaredAt) => Promise<SeenResponse>;
  /** A repository over `inner` (default: a new in-memory one) that records its calls. */
  readonly recordingRepository: (inner?: PlantRepository) => RecordingRepository;
  /** A store over a recording repository, the static verifier for `TOKEN` and a recording `onError`. */
  readonly testStore: (options?: Partial<CreatePlantStoreOptions>) => {
    store: PlantStore;
    repository: RecordingRepository;
    onError: Spy<[unknown, unknown?], void>;
  };
}

/** One rule of the contract, as a check any runtime can run. */
export interface ConformanceCase {
  /** The rule's group, as `describe` names it: `handleCreatePlant: 2. authentication`. */
  readonly group: string;
  /** What the case checks, as `it` names it. */
  readonly name: string;
  /** Why the case needs an in-process call; absent when it also holds over HTTP. */
  readonly directOnly?: string;
  /** Runs the checks; rejects (an `AssertionError`) when the rule is broken. */
  readonly run: (t: CaseContext) => Promise<void> | void;
}

/**
 * Builds the context a case runs in, from the library and a transport.
 *
 * @param lib The library under test.
 * @param deliver How a request reaches a handler; default: a direct call.
 * @returns The context to pass to each case's `run`.
 * @example
 * ```ts
 * import * as lib from '../../lib/index.ts';
 * const context = createCaseContext(lib);
 * for (const rule of conformanceCases) await rule.run(context);
 * ```
 */
export function createCaseContext(
  lib: PlantStoreLibrary,
  deliver: Transport = (handler, request) => handler(request),
): CaseContext {
  const recordingRepository = (inner: PlantRepository = lib.createMemoryRepository()) => ({
    create: spy(inner.create.bind(inner)),
  });
  return {
    lib,
    deliver,
    async send(handler, request, where = 'createPlant') {
      const response = await deliver(handler, request);
      const body = await assertMatchesOpenApi(response, where);
      return { status: response.status, headers: response.headers, body };
    },
    recordingRepository,
    testStore(options = {}) {
      const repository = recordingRepository();
      const onError = spy((_error: unknown, _context?: unknown) => {});
      const store = lib.createPlantStore({
        repository,
        verifier: lib.createStaticTokenVerifier([TOKEN]),
        onError,
        ...options,
      });
      return { store, repository, onError };
    },
  };
}

const cases: ConformanceCase[] = [];
let group = '';
/** Names the group of the cases `body` adds, as `describe` does. */
function describe(name: string, body: () => void): void {
  group = name;
  body();
}
/** Adds a case to the current group, as `it` does. */
function it(name: string, run: ConformanceCase['run'], directOnly?: string): void {
  cases.push(directOnly === undefined ? { group, name, run } : { group, name, run, directOnly });
}

// Reasons a case holds only for an in-process call.
const WATCHES_STREAM = 'watches how much of the request body stream the handler pulls';
const FAILS_STREAM = 'fails the request body stream midway, which over HTTP fails the client';
const SETS_LENGTH = 'sets Content-Length by hand, which an HTTP client computes itself';
const USES_SIGNAL = "aborts the request's own signal, which only the server side can";
const HOLDS_STREAM = 'keeps the request body stream open, which an HTTP client would have to hold';

const encoder = new TextEncoder();
const json = (value: unknown) => JSON.stringify(value);

/** Settles as `promise` does, or rejects with `why` when it takes longer than `ms`. */
async function within<T>(ms: number, promise: Promise<T>, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${why} (over ${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The plant the repository was asked to store by its one call. */
function storedBy(repository: RecordingRepository): NewPlant {
  assert.equal(repository.create.calls.length, 1);
  return repository.create.calls[0]?.[0] as NewPlant;
}

describe('createPlantStore', () => {
  it('throws a TypeError when no verifier is given', (t) => {
    assert.throws(() => t.lib.createPlantStore({} as never), {
      name: 'TypeError',
      message: /needs a verifier/,
    });
  });

  it('throws a TypeError when an option is out of range', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    for (const options of [
      { maxBodyBytes: 0 },
      { maxBodyBytes: 1.5 },
      { timeoutMs: 0 },
      { timeoutMs: Number.POSITIVE_INFINITY },
      { timeoutMs: 2 ** 31 },
      { repository: {} as PlantRepository },
      { onError: 'log' as never },
    ]) {
      assert.throws(
        () => t.lib.createPlantStore({ verifier, ...options }),
        TypeError,
        json(options),
      );
    }
  });

  it('throws a TypeError naming an option it does not know, rather than ignoring it (#20)', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    // Built elsewhere, a misspelled option type-checks: TypeScript only refuses extra keys in a
    // literal written at the call.
    const options = { verifier, maxBodySize: 1_000_000 };
    assert.throws(() => t.lib.createPlantStore(options), {
      name: 'TypeError',
      message:
        'createPlantStore: unknown option "maxBodySize"; did you mean "maxBodyBytes"? (known: repository, verifier, maxBodyBytes, timeoutMs, onError, onTokenRejected, cors, basePath, publicUrl, trustProxy)',
    });
  });

  it('stores in memory by default', async (t) => {
    const store = t.lib.createPlantStore({ verifier: t.lib.createStaticTokenVerifier([TOKEN]) });
    const first = await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const conflict = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'b' })),
    );
    assert.equal(first.status, 200);
    assert.equal(conflict.status, 409);
  });
});

describe('handleCreatePlant: 1. method', () => {
  for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    it(`answers 405 with Allow: POST to ${method}, before authentication`, async (t) => {
      const { store, repository } = t.testStore();
      const request = new Request('http://localhost/plants', { method });
      const response = await t.deliver(store.handleCreatePlant, request);
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(response.headers.get('content-type'), 'application/json');
      if (method !== 'HEAD') {
        assert.deepEqual(await response.json(), { error: 405, message: 'method not allowed' });
      }
      assert.equal(repository.create.calls.length, 0);
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
    it(`answers 401 with the bare challenge when the header has ${name}`, async (t) => {
      const repository = t.recordingRepository();
      const verify = spy(() => ({ valid: true as const }));
      const guarded = t.lib.createPlantStore({ verifier: { verify }, repository });
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers.authorization = authorization;
      const request = new Request('http://localhost/plants', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: json({ id: 1, name: 'a' }),
      });
      const response = await t.send(guarded.handleCreatePlant, request);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), realm);
      assert.deepEqual(response.body, { error: 401, message: 'a bearer token is required' });
      assert.equal(verify.calls.length, 0, 'a malformed header never reaches the verifier');
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('accepts the scheme in any case and with several spaces', async (t) => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER   ${TOKEN}`, `bEaReR ${TOKEN}`]) {
      const { store } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { authorization }),
      );
      assert.equal(response.status, 200, authorization);
    }
  });

  it('answers 401 with error="invalid_token" when the verifier rejects a well-formed token', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { authorization: 'Bearer wrong-token' }),
    );
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), `${realm}, error="invalid_token"`);
    assert.deepEqual(response.body, { error: 401, message: 'the bearer token is not valid' });
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'never reads the body when the token is missing or rejected',
    async (t) => {
      for (const authorization of [undefined, 'Bearer wrong-token', 'Basic abc']) {
        const { store, repository } = t.testStore();
        const { stream, state } = countingStream([encoder.encode(json({ id: 1, name: 'a' }))]);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization) headers.authorization = authorization;
        const request = new Request('http://localhost/plants', {
          method: 'POST',
          headers,
          body: stream,
          duplex: 'half',
        } as RequestInit);
        const response = await t.send(store.handleCreatePlant, request);
        assert.equal(response.status, 401);
        assert.equal(state.pulled, 0, 'no byte of the body was pulled');
        assert.equal(request.bodyUsed, false);
        assert.equal(repository.create.calls.length, 0);
      }
    },
    WATCHES_STREAM,
  );

  it('answers 401 before looking at the body, even when the body is also wrong', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(null, { authorization: 'Bearer nope', 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 401);
  });

  it('passes the token and a signal to the verifier', async (t) => {
    const verify = spy((_token: string, _context: { signal: AbortSignal }) => ({
      valid: true as const,
    }));
    const store = t.lib.createPlantStore({ verifier: { verify } });
    await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const [token, context] = verify.calls[0] ?? [];
    assert.equal(token, TOKEN);
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('accepts an async verifier and hands its principal to the repository', async (t) => {
    const repository = t.recordingRepository();
    const principal = { sub: 'gardener-7' };
    const store = t.lib.createPlantStore({
      repository,
      verifier: { verify: async () => ({ valid: true, principal }) },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 200);
    const context = repository.create.calls[0]?.[1] as PlantRepositoryContext;
    assert.equal(context.principal, principal);
  });

  it('answers 500 and reports ERR_MALFORMED_VERDICT when a verdict is not of the documented shape (#20)', async (t) => {
    // A verifier that answers `true`, nothing, or `{ valid: 'yes' }` is a bug in the host's code:
    // it is never let through, and onError names the collaborator and the shape it must answer.
    for (const verdict of [undefined, null, true, 'valid', { valid: 'yes' }, {}]) {
      const { store, repository, onError } = t.testStore({
        verifier: { verify: () => verdict as never },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500, json(verdict));
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(repository.create.calls.length, 0);
      assert.equal(onError.calls.length, 1);
      const error = onError.calls[0]?.[0] as { code?: string; message?: string };
      assert.equal(error.code, 'ERR_MALFORMED_VERDICT');
      assert.match(String(error.message), /TokenVerifier\.verify/);
      assert.match(
        String(error.message),
        /\{ valid: true(, principal\?)? \} or \{ valid: false(, reason\?)? \}/,
      );
    }
  });

  it('answers 500 and reports the error when the verifier throws, never letting the request through', async (t) => {
    for (const verify of [
      () => {
        throw new Error('key server down at 10.0.0.7');
      },
      () => Promise.reject(new Error('key server down at 10.0.0.7')),
    ]) {
      const { store, repository, onError } = t.testStore({ verifier: { verify } });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.calls.length, 1);
      assert.match(String(onError.calls[0]?.[0]), /key server down/);
      assert.equal(repository.create.calls.length, 0);
    }
  });
});

describe('handleCreatePlant: 3. body present', () => {
  it('answers 400 "request body is required" when there is no body', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(store.handleCreatePlant, plantRequest(null));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'answers 400 when Content-Length is 0, without reading',
    async (t) => {
      const { store } = t.testStore();
      const { stream, state } = countingStream([encoder.encode('{}')]);
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(stream, { 'content-length': '0' }),
      );
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
      assert.equal(state.pulled, 0);
    },
    SETS_LENGTH,
  );

  it(
    'answers 400 when a streamed body turns out empty',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream } = countingStream([new Uint8Array(0)]);
      const response = await t.send(store.handleCreatePlant, plantRequest(stream));
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
      assert.equal(repository.create.calls.length, 0);
    },
    WATCHES_STREAM,
  );

  it('checks presence before the media type', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
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
    // An empty parameter does not end the check: the charset after it still counts.
    'application/json;;charset=latin1',
    'application/json; ; charset=iso-8859-1',
    '',
  ];
  for (const contentType of accepted) {
    it(`accepts Content-Type: ${contentType}`, async (t) => {
      const { store } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 200);
    });
  }
  for (const contentType of refused) {
    it(`answers 415 to Content-Type: ${JSON.stringify(contentType)}`, async (t) => {
      const { store, repository } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 415);
      assert.deepEqual(response.body, {
        error: 415,
        message: 'content type must be application/json (charset utf-8, if given)',
      });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('answers 415 when there is no Content-Type at all', async (t) => {
    const { store } = t.testStore();
    const body = encoder.encode(json({ id: 1, name: 'a' })); // bytes get no default type
    const request = new Request('http://localhost/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body,
    });
    assert.equal(request.headers.get('content-type'), null);
    const response = await t.send(store.handleCreatePlant, request);
    assert.equal(response.status, 415);
  });

  it('checks the media type before the size', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 10 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest('x'.repeat(100), { 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 415);
  });
});

describe('handleCreatePlant: 5. size', () => {
  const tooLarge = { error: 413, message: 'request body is larger than 102400 bytes' };

  it(
    'answers 413 to a Content-Length over the limit without reading the body',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream, state } = countingStream(endlessChunks(1024));
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(stream, { 'content-length': '102401' }),
      );
      assert.equal(response.status, 413);
      assert.deepEqual(response.body, tooLarge);
      assert.equal(state.pulled, 0);
      assert.equal(repository.create.calls.length, 0);
    },
    SETS_LENGTH,
  );

  it(
    'answers 413 to a streamed body over the limit and stops reading at the limit',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream, state } = countingStream(endlessChunks(4096));
      const response = await t.send(store.handleCreatePlant, plantRequest(stream));
      assert.equal(response.status, 413);
      assert.deepEqual(response.body, tooLarge);
      assert.ok(state.pulled <= 102_400 + 4096, `pulled ${state.pulled} bytes`);
      assert.equal(state.cancelled, true, 'the rest of the stream is cancelled');
      assert.equal(repository.create.calls.length, 0);
    },
    WATCHES_STREAM,
  );

  it('accepts a body of exactly maxBodyBytes and refuses one byte more', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 64 });
    const plant = json({ id: 1, name: 'a' });
    const exact = plant.padEnd(64, ' ');
    const ok = await t.send(store.handleCreatePlant, plantRequest(exact));
    assert.equal(ok.status, 200);
    const over = await t.send(store.handleCreatePlant, plantRequest(`${exact} `));
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { error: 413, message: 'request body is larger than 64 bytes' });
  });

  it(
    'answers 400 when a body built in process is longer or shorter than its Content-Length',
    async (t) => {
      // A server frames a body by its Content-Length; only a host's own Request can disagree.
      const { store, repository } = t.testStore({ maxBodyBytes: 1000 });
      const plant = json({ id: 1, name: 'a' });
      for (const declared of [plant.length - 1, plant.length + 1]) {
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(plant, { 'content-length': String(declared) }),
        );
        assert.equal(response.status, 400, String(declared));
        assert.deepEqual(response.body, {
          error: 400,
          message: 'request body length does not match its Content-Length',
        });
      }
      assert.equal(repository.create.calls.length, 0);
    },
    SETS_LENGTH,
  );

  it(
    'reads the body when Content-Length is not plain digits: such a header declares nothing',
    async (t) => {
      // "1e9" and "+99999999" would be over the limit as numbers, "0x0" zero: none is a length.
      for (const length of ['1e9', '+99999999', '0x0']) {
        const { store, repository } = t.testStore();
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(json({ id: 4, name: 'a' }), { 'content-length': length }),
        );
        assert.equal(response.status, 200, length);
        assert.deepEqual(storedBy(repository), { id: 4n, name: 'a' });
      }
    },
    SETS_LENGTH,
  );

  it('reads a body that arrives in many chunks, a character split across two', async (t) => {
    const { store, repository } = t.testStore();
    const bytes = encoder.encode(json({ id: 3, name: 'a€b', tag: 'tag' }));
    const split = bytes.indexOf(0xe2) + 1; // inside the three bytes of €
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, split), bytes.subarray(split)];
    const { stream } = countingStream(chunks);
    const response = await t.send(store.handleCreatePlant, plantRequest(stream));
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 3n, name: 'a€b', tag: 'tag' });
  });

  it(
    'answers 500 and reports the error when the body stream fails midway',
    async (t) => {
      const { store, repository, onError } = t.testStore();
      let sent = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) controller.error(new Error('disk gone'));
          else controller.enqueue(encoder.encode('{"id":1,'));
          sent = true;
        },
      });
      const response = await t.send(store.handleCreatePlant, plantRequest(stream));
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.calls.length, 1);
      assert.match(String(onError.calls[0]?.[0]), /disk gone/);
      assert.equal(repository.create.calls.length, 0);
    },
    FAILS_STREAM,
  );

  it('counts bytes, not characters', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 40 });
    // 30 characters, but the name is 10 × 3 bytes: 50 bytes.
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: '€'.repeat(10) })),
    );
    assert.equal(response.status, 413);
  });
});

describe('handleCreatePlant: a body the host read first (#20)', () => {
  // A host that ran a body parser or validator before the store (Hono's validator('json'), a
  // middleware that awaited request.json()) hands over a Request whose body is gone. That once
  // crashed the process with an unhandled rejection, or left the client waiting for the deadline.
  const hostReads: Array<[string, (request: Request) => Promise<unknown>]> = [
    ['read it as text', (request) => request.text()],
    ['parsed it as JSON', (request) => request.json()],
    ['holds a reader on it', async (request) => request.body?.getReader()],
  ];
  // A server's request declares its length (read whole), one built in process may not (a stream).
  const framings: Array<[string, Record<string, string>]> = [
    ['', {}],
    [', the length declared', { 'content-length': String(json({ id: 1, name: 'a' }).length) }],
  ];
  for (const [what, read] of hostReads) {
    for (const [framing, headers] of framings) {
      it(`answers 500 at once and reports ERR_BODY_ALREADY_READ when the host ${what}${framing}`, async (t) => {
        const { store, repository, onError } = t.testStore({ timeoutMs: 60_000 });
        const host: Handler = async (request) => {
          await read(request);
          return store.fetch(request);
        };
        const response = await within(
          5_000,
          t.send(host, plantRequest(json({ id: 1, name: 'a' }), headers)),
          'the client waited for the deadline',
        );
        assert.equal(response.status, 500);
        assert.deepEqual(response.body, {
          error: 500,
          message:
            'internal error: the request body was read before plant-store; mount plant-store before any body parser',
        });
        assert.equal(repository.create.calls.length, 0);
        assert.equal(onError.calls.length, 1);
        const error = onError.calls[0]?.[0] as { code?: string; message?: string };
        assert.equal(error.code, 'ERR_BODY_ALREADY_READ');
        assert.match(String(error.message), /already read/);
        assert.match(String(error.message), /mount plant-store before/);
      });
    }
  }

  it('still answers 401 without reading anything when the token is missing', async (t) => {
    const { store, onError } = t.testStore();
    const host: Handler = async (request) => {
      await request.text();
      return store.fetch(request);
    };
    const response = await t.send(
      host,
      plantRequest(json({ id: 1, name: 'a' }), { authorization: '' }),
    );
    assert.equal(response.status, 401);
    assert.equal(onError.calls.length, 0);
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
    it(`answers 400 to ${name} inside a string, never replacing it`, async (t) => {
      const { store, repository } = t.testStore();
      const body = new Uint8Array([
        ...encoder.encode('{"id":1,"name":"a'),
        ...bytes,
        ...encoder.encode('"}'),
      ]);
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is not valid UTF-8' });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('skips a byte order mark at the start of the body but keeps U+FEFF inside a string', async (t) => {
    const { store, repository } = t.testStore();
    const body = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode(json({ id: 1, name: '\ufeffa' })),
    ]);
    const response = await t.send(store.handleCreatePlant, plantRequest(body));
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).name, '\ufeffa');
  });

  it('keeps multi-byte UTF-8 exactly', async (t) => {
    const { store, repository } = t.testStore();
    const name = 'Ficus 🌿 µ 漢字 é';
    const response = await t.send(
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
    it(`answers 400 with a message saying what is wrong to ${JSON.stringify(body)}`, async (t) => {
      const { store, repository } = t.testStore();
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      const { message } = response.body as { message: string };
      assert.match(message, /^request body is not valid JSON: \S/);
      assert.equal(repository.create.calls.length, 0);
    });
  }
});

describe('handleCreatePlant: 7. shape', () => {
  async function create(t: CaseContext, body: string, store = t.testStore()) {
    const response = await t.send(store.store.handleCreatePlant, plantRequest(body));
    return { response, ...store };
  }

  for (const body of ['[]', '[{"id":1,"name":"a"}]', '"plant"', '42', 'null', 'true']) {
    it(`answers 400 when the top level is ${body}, not an object`, async (t) => {
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'request body must be a JSON object',
      });
      assert.equal(repository.create.calls.length, 0);
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
    it(`stores id ${literal} exactly as ${id}`, async (t) => {
      const { response, repository } = await create(t, `{"id":${literal},"name":"a"}`);
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
    it(`answers 400 naming id when id is ${literal}`, async (t) => {
      const { response, repository } = await create(t, `{"id":${literal},"name":"a"}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
      });
      assert.equal(repository.create.calls.length, 0);
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
    it(`answers 400 "${message}" to ${body}`, async (t) => {
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('stores the empty string, escapes and astral characters exactly', async (t) => {
    for (const [name, tag] of [
      ['', ''],
      ['"quoted" \\ back/slash', '\u2028\n\t'],
      ['🌵\ud83c\udf35', 'e\u0301'],
    ]) {
      const { response, repository } = await create(t, json({ id: 1, name, tag }));
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { name, tag });
      assert.deepEqual(storedBy(repository), { id: 1n, name, tag });
    }
  });

  it('answers the Plant as the very text JSON.stringify gives, escapes and all', async (t) => {
    const { store } = t.testStore();
    const plants: Array<[string, string | undefined]> = [
      ['Monstera', undefined],
      ['Monstera deliciosa', 'aroid'],
      [' !#[]~', '"quoted" \\ back/slash'],
      ['\u007f\u0080\u00e9', '\u2028\n\t\u0001'],
      ['🌵', ''],
    ];
    for (const [i, [name, tag]] of plants.entries()) {
      const request = plantRequest(json({ id: i + 1, name, tag }));
      const response = await t.deliver(store.handleCreatePlant, request);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), JSON.stringify({ name, tag }), JSON.stringify(name));
    }
  });

  it('ignores and does not store fields it does not declare', async (t) => {
    const { response, repository } = await create(
      t,
      '{"id":1,"name":"a","extra":{"id":"x","name":"b"},"price":1e400,"owner":null}',
    );
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { name: 'a' });
    assert.deepEqual(Object.keys(storedBy(repository)).sort(), ['id', 'name']);
  });

  it('survives nesting as deep as the size limit allows in an ignored field', async (t) => {
    const depth = 50_000;
    const body = `{"id":1,"name":"a","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const { response, repository } = await create(t, body);
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).id, 1n);
  });

  it('is not fooled by __proto__ and constructor keys', async (t) => {
    const body = '{"__proto__":{"name":"evil","tag":"x"},"constructor":{"id":2},"id":1,"name":"a"}';
    const { response, repository } = await create(t, body);
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 1n, name: 'a' });
    assert.equal(({} as Record<string, unknown>).name, undefined, 'no prototype was polluted');
  });

  it('does not take a name or tag from the prototype chain', async (t) => {
    const { response } = await create(t, '{"id":1,"__proto__":{"name":"inherited"}}');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'name is required' });
  });

  it('takes the last of a duplicated key, as JSON.parse does', async (t) => {
    const { repository } = await create(
      t,
      '{"id":1.5,"name":"a","id":2,"name":"b","tag":"x","tag":"y"}',
    );
    assert.deepEqual(storedBy(repository), { id: 2n, name: 'b', tag: 'y' });
    const rejected = await create(t, '{"id":2,"name":"a","id":2.5}');
    assert.equal(rejected.response.status, 400);
  });

  it('reads only the top-level id, whatever nested values and strings hold', async (t) => {
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
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 200, body);
      assert.equal(storedBy(repository).id, id, body);
    }
  });

  it('treats every spelling of one id as that id', async (t) => {
    const store = t.testStore();
    for (const literal of ['1', '1.0', '1e0', '10e-1', '0.1e1']) {
      const { response } = await create(t, `{"id":${literal},"name":"a"}`, store);
      assert.equal(response.status, 200, literal);
    }
    const { response } = await create(t, '{"id":1e0,"name":"b"}', store);
    assert.equal(response.status, 409);
    await create(t, '{"id":-0,"name":"zero"}', store);
    assert.equal((await create(t, '{"id":0,"name":"zero"}', store)).response.status, 200);
    assert.equal((await create(t, '{"id":0,"name":"other"}', store)).response.status, 409);
  });
});

describe('handleCreatePlant: 8. store', () => {
  it('answers 200 with exactly name and tag, and hands the repository a bigint id', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 42, name: 'Monstera', tag: 'aroid' })),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.body, { name: 'Monstera', tag: 'aroid' });
    const [plant, context] = repository.create.calls[0] ?? [];
    assert.deepEqual(plant, { id: 42n, name: 'Monstera', tag: 'aroid' });
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('omits tag from the response when none was given', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.deepEqual(response.body, { name: 'a' });
  });

  it('answers 200 again and changes nothing when the same plant is sent again', async (t) => {
    const memory = t.lib.createMemoryRepository();
    const { store } = t.testStore({ repository: memory });
    const body = json({ id: 7, name: 'Fern', tag: 'fern' });
    const first = await t.send(store.handleCreatePlant, plantRequest(body));
    const again = await t.send(store.handleCreatePlant, plantRequest(body));
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { name: 'Fern', tag: 'fern' });
    const outcome = await memory.create(
      { id: 7n, name: 'probe' },
      { signal: AbortSignal.timeout(1000) },
    );
    assert.deepEqual(outcome, { created: false, existing: { name: 'Fern', tag: 'fern' } });
  });

  it('treats a stored null tag as no tag when replaying', async (t) => {
    const repository: PlantRepository = {
      create: async () => ({ created: false, existing: { name: 'a', tag: null as never } }),
    };
    const { store } = t.testStore({ repository });
    const replay = await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(replay.status, 200);
    const other = await t.send(
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
    it(`answers 409 and keeps the stored plant when the ${what} differs`, async (t) => {
      const memory = t.lib.createMemoryRepository();
      const { store } = t.testStore({ repository: memory });
      await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })),
      );
      const response = await t.send(store.handleCreatePlant, plantRequest(json(second)));
      assert.equal(response.status, 409);
      assert.deepEqual(response.body, {
        error: 409,
        message: 'a different plant is already stored under this id',
      });
      const replay = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })),
      );
      assert.equal(replay.status, 200, 'the first plant is still stored');
    });
  }

  it('answers 500 "internal error" and reports the detail when the repository throws', async (t) => {
    const secret = new Error('relation "plants" does not exist at pg-pool 10.0.0.7');
    for (const create of [
      () => Promise.reject(secret),
      () => {
        throw secret;
      },
    ]) {
      const { store, onError } = t.testStore({ repository: { create } });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.calls.length, 1);
      assert.equal(onError.calls[0]?.[0], secret);
    }
  });

  it('answers 500 and reports ERR_MALFORMED_OUTCOME when an outcome is not of the documented shape (#20)', async (t) => {
    for (const outcome of [
      undefined,
      true,
      { created: 'yes' },
      { created: false },
      { created: false, existing: null },
      { created: false, existing: { name: 7 } },
      { created: false, existing: { name: 'a', tag: 7 } },
    ]) {
      for (const create of [() => outcome as never, async () => outcome as never]) {
        const { store, onError } = t.testStore({ repository: { create } });
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(json({ id: 1, name: 'a' })),
        );
        assert.equal(response.status, 500, json(outcome));
        assert.deepEqual(response.body, { error: 500, message: 'internal error' });
        assert.equal(onError.calls.length, 1);
        const error = onError.calls[0]?.[0] as { code?: string; message?: string };
        assert.equal(error.code, 'ERR_MALFORMED_OUTCOME', json(outcome));
        assert.match(String(error.message), /PlantRepository\.create/);
        assert.match(String(error.message), /\{ created: true \} or \{ created: false, existing/);
      }
    }
  });

  it('does not let an async onError that rejects become an unhandled rejection', async (t) => {
    let heard = 0;
    const store = t.lib.createPlantStore({
      verifier: t.lib.createStaticTokenVerifier([TOKEN]),
      repository: { create: () => Promise.reject(new Error('down')) },
      // Type-checks: an async function is a function returning void to TypeScript.
      onError: async () => {
        heard += 1;
        throw new Error('logger broken');
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 500);
    assert.equal(heard, 1);
    // An unhandled rejection would surface on the next turns; give it the chance to.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('answers 507 to a new id once the memory store holds maxPlants, and replays and conflicts as before (#21)', async (t) => {
    const { store, onError } = t.testStore({
      repository: t.lib.createMemoryRepository({ maxPlants: 2 }),
    });
    const send = (body: unknown) => t.send(store.handleCreatePlant, plantRequest(json(body)));
    assert.equal((await send({ id: 1, name: 'a' })).status, 200);
    assert.equal((await send({ id: 2, name: 'b' })).status, 200);
    const full = await send({ id: 3, name: 'c' });
    assert.equal(full.status, 507);
    assert.deepEqual(full.body, { error: 507, message: 'the store is full' });
    assert.equal((await send({ id: 1, name: 'a' })).status, 200, 'a replay');
    assert.equal((await send({ id: 2, name: 'x' })).status, 409, 'a conflict');
    assert.equal(onError.calls.length, 0, 'a full store is no fault');
  });

  it('refuses a maxPlants that is not a positive integer, and an unknown option (#21)', (t) => {
    for (const options of [
      { maxPlants: 0 },
      { maxPlants: 1.5 },
      { maxPlants: -1 },
      { maxPlant: 5 },
    ]) {
      assert.throws(
        () => t.lib.createMemoryRepository(options as never),
        { name: 'TypeError', message: /^createMemoryRepository: / },
        json(options),
      );
    }
  });

  it("tells onError the request's X-Request-Id (#21)", async (t) => {
    const { store, onError } = t.testStore({
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': 'req-42' }),
    );
    assert.equal(response.status, 500);
    assert.deepEqual(onError.calls[0]?.[1], { requestId: 'req-42' });
  });

  it('does not hand onError an X-Request-Id that serve would not keep', async (t) => {
    for (const sent of ['r'.repeat(201), 'req 42', 'req\t42']) {
      const { store, onError } = t.testStore({
        repository: {
          create() {
            throw new Error('disk on fire');
          },
        },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': sent }),
      );
      assert.equal(response.status, 500);
      // Called directly, no id; behind serve, the one it made instead.
      const seen = (onError.calls[0]?.[1] as { requestId?: string } | undefined)?.requestId;
      assert.notEqual(seen, sent);
      if (seen !== undefined) assert.match(seen, /^[\x21-\x7e]{1,200}$/);
    }
  });

  it('hands onError an X-Request-Id of 200 visible characters as it is', async (t) => {
    const sent = `${'r'.repeat(199)}~`;
    const { store, onError } = t.testStore({
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': sent }),
    );
    assert.deepEqual(onError.calls[0]?.[1], { requestId: sent });
  });

  it('still answers 500 when onError itself throws', async (t) => {
    const store = t.lib.createPlantStore({
      verifier: t.lib.createStaticTokenVerifier([TOKEN]),
      repository: { create: () => Promise.reject(new Error('down')) },
      onError: () => {
        throw new Error('logger broken');
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 500);
  });

  it('answers 503 at the deadline, aborts the repository signal, and keeps serving others', async (t) => {
    let seen: AbortSignal | undefined;
    const memory = t.lib.createMemoryRepository();
    const repository: PlantRepository = {
      create(plant, context) {
        if (plant.id === 1n) {
          seen = context.signal;
          return never();
        }
        return memory.create(plant, context);
      },
    };
    const { store, onError } = t.testStore({ repository, timeoutMs: 100 });
    const started = Date.now();
    const hung = t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'hung' })));
    const other = await t.send(store.handleCreatePlant, plantRequest(json({ id: 2, name: 'ok' })));
    assert.equal(other.status, 200, 'another request is served while one hangs');
    const response = await hung;
    assert.equal(response.status, 503);
    assert.deepEqual(response.body, {
      error: 503,
      message: 'the request timed out; retrying it is safe',
    });
    assert.ok(Date.now() - started >= 90, 'not before the deadline');
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof t.lib.PlantApiError);
    assert.equal(seen?.reason.code, 'ERR_TIMEOUT');
    assert.equal(onError.calls.length, 1, 'the deadline is reported once');
  });

  it('gives each create its own deadline, counted from its own start', async (t) => {
    const repository: PlantRepository = {
      create: (plant) => (plant.name === 'hang' ? never() : { created: true }),
    };
    const { store } = t.testStore({ repository, timeoutMs: 150 });
    const answered = (id: number, name: string) => {
      const started = Date.now();
      return t
        .send(store.handleCreatePlant, plantRequest(json({ id, name })))
        .then((response) => ({ status: response.status, after: Date.now() - started }));
    };
    const first = answered(1, 'hang');
    await new Promise((resolve) => setTimeout(resolve, 60));
    // One create starts and finishes between the two hung ones: the deadlines on either side
    // of it must still fire.
    const quick = await answered(2, 'quick');
    const second = answered(3, 'hang');
    const [one, two] = await Promise.all([first, second]);
    assert.deepEqual(quick.status, 200);
    assert.equal(one.status, 503);
    assert.equal(two.status, 503);
    for (const { after } of [one, two]) {
      assert.ok(after >= 140, `answered ${after} ms after its start: before its deadline`);
      assert.ok(after < 1000, `answered ${after} ms after its start: long past its deadline`);
    }
  });

  it('keeps the deadline of a create started while another one expires', async (t) => {
    let retried: Promise<number> | undefined;
    let store: PlantStore | undefined;
    const repository: PlantRepository = {
      create(plant, context) {
        // The first create's repository retries at once when its signal fires: the retry
        // starts inside the deadline's own expiry, and must still get its own full deadline.
        if (plant.name === 'first') {
          context.signal.addEventListener('abort', () => {
            const again = plantRequest(json({ id: 2, name: 'retry' }));
            retried = t.send((store as PlantStore).handleCreatePlant, again).then((r) => r.status);
          });
        }
        return never();
      },
    };
    ({ store } = t.testStore({ repository, timeoutMs: 60 }));
    const first = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'first' })),
    );
    const expiredAt = Date.now();
    assert.equal(first.status, 503);
    assert.equal(await retried, 503);
    assert.ok(Date.now() - expiredAt >= 50, 'the retry was answered before its own deadline');
  });

  it('decides replay and conflict alike whether the repository answers at once or with a promise', async (t) => {
    const answersAtOnce = t.lib.createMemoryRepository();
    const backing = t.lib.createMemoryRepository();
    const answersLater: PlantRepository = {
      create: (plant, context) =>
        new Promise((resolve) => setTimeout(() => resolve(backing.create(plant, context)), 5)),
    };
    for (const repository of [answersAtOnce, answersLater]) {
      const { store } = t.testStore({ repository });
      const statuses = [];
      for (const plant of [
        { id: 1, name: 'Fern' },
        { id: 1, name: 'Fern' },
        { id: 1, name: 'Moss' },
      ]) {
        statuses.push((await t.send(store.handleCreatePlant, plantRequest(json(plant)))).status);
      }
      assert.deepEqual(statuses, [200, 200, 409]);
    }
  });

  it('answers 503 when the verifier hangs past the deadline', async (t) => {
    const { store, repository } = t.testStore({ verifier: { verify: never }, timeoutMs: 50 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'aborts the repository signal when the client goes away, without reporting an error',
    async (t) => {
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
      const { store, onError } = t.testStore({ repository });
      const response = await t.deliver(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: client.signal }),
      );
      assert.equal(seen?.aborted, true);
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it(
    'answers 503, with the signal aborted, when a repository asks after a client already gone',
    async (t) => {
      // The client is looked at when a collaborator asks for the signal (or after a wait): a
      // request's signal costs Bun and Deno more than a create, so a synchronous create of a
      // client already gone may still land, harmlessly (its retry is a replay).
      let seen: AbortSignal | undefined;
      const { store, onError } = t.testStore({
        repository: {
          create(_plant, context) {
            seen = context.signal;
            return { created: true };
          },
        },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: AbortSignal.abort() }),
      );
      assert.equal(response.status, 503);
      assert.equal(seen?.aborted, true);
      await new Promise((resolve) => setTimeout(resolve, 20)); // let any late work surface
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it('does not call the repository after the deadline passed during a slow verify', async (t) => {
    const { store, repository } = t.testStore({
      timeoutMs: 30,
      verifier: {
        verify: () => new Promise((resolve) => setTimeout(() => resolve({ valid: true }), 80)),
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(repository.create.calls.length, 0);
  });

  it('reports to onError the repository a create waited on when its deadline passed', async (t) => {
    const { store, onError } = t.testStore({ repository: { create: never }, timeoutMs: 50 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': 'req-7' }),
    );
    assert.equal(response.status, 503);
    assert.equal(onError.calls.length, 1);
    const [error, context] = onError.calls[0] ?? [];
    assert.ok(error instanceof t.lib.PlantApiError);
    assert.equal(error.code, 'ERR_REPOSITORY_TIMEOUT');
    assert.match(error.message, /PlantRepository.*50 ms/);
    assert.ok(typeof (context as { requestId?: unknown })?.requestId === 'string');
  });

  it('reports to onError the verifier a create waited on when its deadline passed', async (t) => {
    const { store, repository, onError } = t.testStore({
      verifier: { verify: never },
      timeoutMs: 50,
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    assert.equal(repository.create.calls.length, 0);
    assert.equal(onError.calls.length, 1);
    const error = onError.calls[0]?.[0];
    assert.ok(error instanceof t.lib.PlantApiError);
    assert.equal(error.code, 'ERR_VERIFIER_TIMEOUT');
    assert.match(error.message, /TokenVerifier/);
  });

  it('still answers 503 at the deadline when onError throws or rejects', async (t) => {
    for (const onError of [
      () => {
        throw new Error('logger broken');
      },
      () => Promise.reject(new Error('logger broken')),
    ]) {
      const store = t.lib.createPlantStore({
        verifier: t.lib.createStaticTokenVerifier([TOKEN]),
        repository: { create: never },
        timeoutMs: 30,
        onError,
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 503);
    }
  });

  it(
    'does not report a create whose client left before its deadline passed',
    async (t) => {
      const client = new AbortController();
      const { store, onError } = t.testStore({
        repository: {
          create() {
            client.abort();
            return never();
          },
        },
        timeoutMs: 50,
      });
      const response = await t.deliver(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: client.signal }),
      );
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it(
    'does not report a create whose client was still sending the body when its deadline passed',
    async (t) => {
      const { store, onError } = t.testStore({ timeoutMs: 50 });
      const body = new ReadableStream<Uint8Array>({ start() {} });
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    HOLDS_STREAM,
  );

  it('stores exactly one content when many creates of one id race', async (t) => {
    const memory = t.lib.createMemoryRepository();
    const { store } = t.testStore({ repository: memory });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        t.send(store.handleCreatePlant, plantRequest(json({ id: 99, name: `plant-${i}` }))),
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

  it('answers 200 to every one of many identical concurrent creates', async (t) => {
    const { store } = t.testStore();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.send(store.handleCreatePlant, plantRequest(json({ id: 5, name: 'same' }))),
      ),
    );
    assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([200]));
  });

  it('does not route on the path: a host may mount it anywhere', async (t) => {
    const { store } = t.testStore();
    const request = new Request('http://localhost/api/v2/create-a-plant?x=1', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: json({ id: 1, name: 'a' }),
    });
    assert.equal((await t.send(store.handleCreatePlant, request)).status, 200);
  });
});

describe('fetch', () => {
  it('routes POST /plants to the operation, query string or not', async (t) => {
    const { store } = t.testStore();
    for (const url of ['http://localhost/plants', 'http://localhost/plants?dry=1']) {
      const request = new Request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: json({ id: 1, name: 'a' }),
      });
      assert.equal((await t.send(store.fetch, request)).status, 200);
    }
  });

  it('answers 405 with Allow: POST to other methods on /plants, without a token', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.fetch,
      new Request('http://localhost/plants', { method: 'GET' }),
      'MethodNotAllowed',
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });

  it('serves the OpenAPI document at GET /openapi.json without a token', async (t) => {
    const { store } = t.testStore();
    const response = await t.deliver(store.fetch, new Request('http://localhost/openapi.json'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    const { servers, ...served } = await response.json();
    const { servers: _relative, ...document } = JSON.parse(JSON.stringify(t.lib.openApiDocument));
    assert.deepEqual(served, document);
    // Over HTTP the origin is the test server's own, so only its form is checked here.
    assert.equal(servers.length, 1);
    assert.equal(new URL(servers[0].url).origin, servers[0].url);
  });

  it(
    "names the origin it was fetched from as the served document's one server (#23)",
    async (t) => {
      const { store } = t.testStore();
      for (const origin of ['http://plants.example:8080', 'https://[::1]', 'http://localhost']) {
        const response = await t.deliver(store.fetch, new Request(`${origin}/openapi.json?x`));
        const { servers, info } = await response.json();
        assert.deepEqual(servers, [
          { url: origin, description: 'The server this document came from.' },
        ]);
        assert.deepEqual(info.license, { name: 'MIT', identifier: 'MIT' });
      }
      assert.deepEqual(t.lib.openApiDocument.servers, [
        { url: '/', description: 'The server this document is served from.' },
      ]);
    },
    'asks for other origins than the test server it would reach over HTTP',
  );

  it('answers HEAD /openapi.json with no body', async (t) => {
    const { store } = t.testStore();
    const response = await t.deliver(
      store.fetch,
      new Request('http://localhost/openapi.json', { method: 'HEAD' }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.body, null);
  });

  it('answers 405 with Allow: GET, HEAD to other methods on /openapi.json', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.fetch,
      new Request('http://localhost/openapi.json', { method: 'POST', body: '{}' }),
      'MethodNotAllowed',
    );
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, HEAD');
  });

  it('serves the plants and the document under basePath, and 404 at the root', async (t) => {
    const { store } = t.testStore({ basePath: '/api' });
    const created = await t.deliver(
      store.fetch,
      new Request('http://localhost/api/plants', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{"id": 1, "name": "a"}',
      }),
    );
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { name: 'a' });
    const document = await t.deliver(store.fetch, new Request('http://localhost/api/openapi.json'));
    const { servers } = await document.json();
    assert.equal(new URL(servers[0].url).pathname, '/api');
    const root = await t.deliver(store.fetch, new Request('http://localhost/openapi.json'));
    assert.equal(root.status, 404);
  });

  it('names publicUrl, or the trusted proxy’s scheme and host, as the document’s server', async (t) => {
    const fixed = t.testStore({ publicUrl: 'https://api.example.com/v1' }).store;
    const response = await t.deliver(fixed.fetch, new Request('http://localhost/v1/openapi.json'));
    assert.equal((await response.json()).servers[0].url, 'https://api.example.com/v1');
    const proxied = t.testStore({ trustProxy: true }).store;
    const forwarded = await t.deliver(
      proxied.fetch,
      new Request('http://localhost/openapi.json', {
        headers: { forwarded: 'for=192.0.2.1;proto=https;host=plants.example' },
      }),
    );
    assert.equal((await forwarded.json()).servers[0].url, 'https://plants.example');
  });

  it('answers 404 with the Error body to any other path, without a token', async (t) => {
    const { store, repository } = t.testStore();
    for (const path of ['/', '/plants/', '/plants/1', '/Plants', '/openapi.yaml', '/%70lants']) {
      const response = await t.send(
        store.fetch,
        new Request(`http://localhost${path}`, { method: 'POST', body: '{}' }),
        'NotFound',
      );
      assert.equal(response.status, 404, path);
      assert.deepEqual(response.body, { error: 404, message: 'not found' });
    }
    assert.equal(repository.create.calls.length, 0);
  });
});

describe('CORS (#23)', () => {
  const APP = 'http://app.test:5173';
  const EXPOSED = 'WWW-Authenticate, X-Request-Id';
  const origins = { origins: [APP, 'https://docs.example.com'] };
  const ACCESS_CONTROL = /^access-control-/;

  /** The names of the response's `Access-Control-*` headers. */
  function accessControl(headers: Headers): string[] {
    return [...headers.keys()].filter((name) => ACCESS_CONTROL.test(name));
  }

  /** Asserts the headers every response to an allowed origin carries. */
  function assertAllowed(headers: Headers, origin: string, what: string): void {
    assert.equal(headers.get('access-control-allow-origin'), origin, what);
    assert.equal(headers.get('access-control-expose-headers'), EXPOSED, what);
    assert.equal(headers.get('vary'), 'Origin', what);
  }

  function preflight(origin: string | undefined, url = 'http://localhost/plants'): Request {
    const headers: Record<string, string> = {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    if (origin !== undefined) headers.origin = origin;
    return new Request(url, { method: 'OPTIONS', headers });
  }

  it('throws a TypeError for cors origins no browser origin could match', (t) => {
    for (const [what, option] of [
      ['an empty list', { origins: [] }],
      ['a trailing slash', { origins: ['https://app.test/'] }],
      ['a path', { origins: ['https://app.test/app'] }],
      ['a query', { origins: ['https://app.test?x=1'] }],
      ['upper case', { origins: ['https://App.test'] }],
      ['a default port', { origins: ['https://app.test:443'] }],
      ['no scheme', { origins: ['app.test'] }],
      ['another scheme', { origins: ['ftp://app.test'] }],
      ['the opaque origin', { origins: ['null'] }],
      ['one origin as a string', { origins: 'https://app.test' }],
      ['no origins', {}],
      ['a negative maxAge', { origins: '*', maxAge: -1 }],
      ['a fractional maxAge', { origins: '*', maxAge: 1.5 }],
      ['a maxAge over a day', { origins: '*', maxAge: 86_401 }],
      ['null', null],
    ] as const) {
      assert.throws(
        () => t.lib.createCors(option as never),
        { name: 'TypeError', message: /cors/ },
        what,
      );
    }
  });

  it('throws a TypeError when the cors option is not what createCors returns', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    // Plain options, as a JavaScript caller might pass them, are refused at construction.
    assert.throws(() => t.lib.createPlantStore({ verifier, cors: { origins: '*' } as never }), {
      name: 'TypeError',
      message: /^cors takes what createCors\(\) from 'plant-store\/cors' returns/,
    });
  });

  it('adds no CORS header and answers a preflight 405 when cors is off', async (t) => {
    const { store, repository } = t.testStore();
    for (const handler of [store.fetch, store.handleCreatePlant]) {
      const answer = await t.send(handler, preflight(APP), 'MethodNotAllowed');
      assert.equal(answer.status, 405);
      assert.deepEqual(accessControl(answer.headers), []);
      assert.equal(answer.headers.get('vary'), null);
      const created = await t.send(
        handler,
        plantRequest(json({ id: 1, name: 'a' }), { origin: APP }),
      );
      assert.equal(created.status, 200);
      assert.deepEqual(accessControl(created.headers), []);
      assert.equal(created.headers.get('vary'), null);
    }
    assert.equal(repository.create.calls.length, 2);
  });

  it('answers a preflight from an allowed origin 204 without a token, on fetch and handleCreatePlant', async (t) => {
    const verify = spy((_token: string) => ({ valid: true }) as const);
    const { store, repository } = t.testStore({
      cors: t.lib.createCors(origins),
      verifier: { verify },
    });
    for (const [handler, url] of [
      [store.fetch, 'http://localhost/plants'],
      [store.handleCreatePlant, 'http://localhost/anywhere/the/host/mounts/it'],
    ] as const) {
      const response = await t.deliver(handler, preflight(APP, url));
      assert.equal(response.status, 204, url);
      assertAllowed(response.headers, APP, url);
      assert.equal(response.headers.get('access-control-allow-methods'), 'POST');
      assert.equal(
        response.headers.get('access-control-allow-headers'),
        'Authorization, Content-Type, X-Request-Id',
      );
      assert.equal(response.headers.get('access-control-max-age'), '600');
      assert.equal(response.headers.get('content-type'), null);
      assert.equal(await response.text(), '');
    }
    assert.equal(verify.calls.length, 0);
    assert.equal(repository.create.calls.length, 0);
  });

  it("answers '*' with Access-Control-Allow-Origin: * and the configured maxAge", async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors({ origins: '*', maxAge: 7200 }) });
    const response = await t.deliver(store.fetch, preflight('https://anyone.example'));
    assert.equal(response.status, 204);
    assertAllowed(response.headers, '*', 'preflight');
    assert.equal(response.headers.get('access-control-max-age'), '7200');
    const created = await t.send(
      store.fetch,
      plantRequest(json({ id: 2, name: 'a' }), { origin: 'https://anyone.example' }),
    );
    assert.equal(created.status, 200);
    assertAllowed(created.headers, '*', 'create');
  });

  it('gives a disallowed origin no CORS header: its preflight is a plain OPTIONS, 405', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    for (const origin of ['https://evil.test', 'HTTP://APP.TEST:5173', `${APP}/`, 'null']) {
      const response = await t.send(store.fetch, preflight(origin), 'MethodNotAllowed');
      assert.equal(response.status, 405, origin);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.deepEqual(accessControl(response.headers), [], origin);
      // The answer depends on the origin, so caches must key on it (Fetch, CORS and HTTP caches).
      assert.equal(response.headers.get('vary'), 'Origin', origin);
    }
    const created = await t.send(
      store.fetch,
      plantRequest(json({ id: 3, name: 'a' }), { origin: 'https://evil.test' }),
    );
    assert.equal(created.status, 200);
    assert.deepEqual(accessControl(created.headers), []);
    assert.equal(created.headers.get('vary'), 'Origin');
  });

  it('answers 405 with the CORS headers to an OPTIONS from an allowed origin that is not a preflight', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    for (const handler of [store.fetch, store.handleCreatePlant]) {
      const request = new Request('http://localhost/plants', {
        method: 'OPTIONS',
        headers: { origin: APP },
      });
      const response = await t.send(handler, request, 'MethodNotAllowed');
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assertAllowed(response.headers, APP, 'OPTIONS without Access-Control-Request-Method');
    }
  });

  it('answers a request without Origin with no CORS header but Vary: Origin', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    const created = await t.send(store.fetch, plantRequest(json({ id: 4, name: 'a' })));
    assert.equal(created.status, 200);
    assert.deepEqual(accessControl(created.headers), []);
    assert.equal(created.headers.get('vary'), 'Origin');
  });

  it('puts the CORS headers on every answer to an allowed origin, errors included', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins), maxBodyBytes: 64 });
    const withOrigin = (body: BodyInit | null, headers: Record<string, string> = {}) =>
      plantRequest(body, { origin: APP, ...headers });
    const answers: Array<[string, Handler, Request, number, DeclaredAt?]> = [
      ['a create', store.fetch, withOrigin(json({ id: 5, name: 'a' })), 200],
      ['a replay', store.handleCreatePlant, withOrigin(json({ id: 5, name: 'a' })), 200],
      ['a conflict', store.fetch, withOrigin(json({ id: 5, name: 'b' })), 409],
      ['no token', store.fetch, withOrigin('{}', { authorization: '' }), 401],
      ['a rejected token', store.fetch, withOrigin('{}', { authorization: 'Bearer no' }), 401],
      ['no body', store.handleCreatePlant, withOrigin(null), 400],
      ['not JSON', store.fetch, withOrigin('{'), 400],
      ['text/plain', store.fetch, withOrigin('{}', { 'content-type': 'text/plain' }), 415],
      ['too large', store.fetch, withOrigin(json({ id: 6, name: 'a'.repeat(100) })), 413],
      [
        'GET /plants',
        store.fetch,
        new Request('http://localhost/plants', { headers: { origin: APP } }),
        405,
        'MethodNotAllowed',
      ],
      [
        'an unknown path',
        store.fetch,
        new Request('http://localhost/nothing', { method: 'POST', headers: { origin: APP } }),
        404,
        'NotFound',
      ],
      [
        'POST /openapi.json',
        store.fetch,
        new Request('http://localhost/openapi.json', { method: 'POST', headers: { origin: APP } }),
        405,
        'MethodNotAllowed',
      ],
    ];
    for (const [what, handler, request, status, where] of answers) {
      const answer = await t.send(handler, request, where);
      assert.equal(answer.status, status, what);
      assertAllowed(answer.headers, APP, what);
    }
    const refused = await t.send(store.fetch, withOrigin('{}', { authorization: 'Bearer no' }));
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
    const document = await t.deliver(
      store.fetch,
      new Request('http://localhost/openapi.json', { headers: { origin: APP } }),
    );
    assert.equal(document.status, 200);
    assertAllowed(document.headers, APP, 'GET /openapi.json');
  });

  it('puts the CORS headers on a 500 when the repository throws', async (t) => {
    const { store, onError } = t.testStore({
      cors: t.lib.createCors(origins),
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    const answer = await t.send(
      store.fetch,
      plantRequest(json({ id: 7, name: 'a' }), { origin: APP }),
    );
    assert.equal(answer.status, 500);
    assertAllowed(answer.headers, APP, '500');
    assert.equal(onError.calls.length, 1);
  });
});

describe('the diagnostics channels', () => {
  /** The part of `node:diagnostics_channel` the case uses, from the runtime, as the store gets it. */
  interface TracingChannel {
    subscribe(handlers: Record<string, (message: object) => void>): void;
    unsubscribe(handlers: Record<string, (message: object) => void>): void;
  }
  const diagnostics = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:diagnostics_channel') as
    { tracingChannel(name: string): TracingChannel } | undefined;

  it('tells a subscriber every step of a create and of a refused token, with no token or body', async (t) => {
    assert.ok(diagnostics, 'this runtime has node:diagnostics_channel');
    const seen: Array<[string, Record<string, unknown>]> = [];
    const stops = [
      ['create', t.lib.CREATE_CHANNEL],
      ['verifier', t.lib.VERIFIER_CHANNEL],
      ['repository', t.lib.REPOSITORY_CHANNEL],
    ].map(([label, name]) => {
      const channel = diagnostics.tracingChannel(name as string);
      const handlers = Object.fromEntries(
        ['start', 'end', 'asyncStart', 'asyncEnd', 'error'].map((event) => [
          event,
          (message: object) => {
            const { create: _create, ...fields } = message as Record<string, unknown>;
            seen.push([`${label}:${event}`, fields]);
          },
        ]),
      );
      channel.subscribe(handlers);
      return () => channel.unsubscribe(handlers);
    });
    try {
      const rejected = spy((_reason: unknown, _context: unknown) => {});
      const { store } = t.testStore({ onTokenRejected: rejected });
      const body = json({ id: 5, name: 'Begonia' });
      const created = await t.send(store.fetch, plantRequest(body, { 'x-request-id': 'dc-1' }));
      assert.equal(created.status, 200);
      const events = seen.map(([event]) => event);
      for (const step of ['create:start', 'verifier:asyncEnd', 'repository:asyncEnd']) {
        assert.ok(events.includes(step), `${step} in ${events.join(', ')}`);
      }
      const answered = seen.find(([event]) => event === 'create:asyncStart')?.[1];
      assert.deepEqual(
        [
          answered?.requestId,
          answered?.method,
          answered?.path,
          answered?.status,
          answered?.outcome,
        ],
        ['dc-1', 'POST', '/plants', 200, 'created'],
      );
      seen.length = 0;
      const refused = await t.send(
        store.fetch,
        plantRequest(body, { authorization: 'Bearer wrong-one', 'x-request-id': 'dc-2' }),
      );
      assert.equal(refused.status, 401);
      const refusal = seen.find(([event]) => event === 'create:asyncStart')?.[1];
      assert.deepEqual(
        [refusal?.status, refusal?.outcome, refusal?.reason],
        [401, 'ERR_INVALID_TOKEN', 'unknown_token'],
      );
      assert.deepEqual(rejected.calls, [['unknown_token', { requestId: 'dc-2' }]]);
      const text = JSON.stringify(seen);
      assert.ok(!text.includes(TOKEN) && !text.includes('wrong-one') && !text.includes('Begonia'));
    } finally {
      for (const stop of stops) stop();
    }
  });
});

/** Every rule of the contract, in the order the contract lists them. */
export const conformanceCases: readonly ConformanceCase[] = cases;
