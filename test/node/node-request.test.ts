import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  type CreatePlantStoreOptions,
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
  type PlantStore,
} from '../../lib/index.ts';
import { createCors } from '../../lib/cors.ts';
import { toNodeListener } from '../../lib/node.ts';
import { TOKEN } from '../support/fakes.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Sent {
  readonly method?: string;
  readonly path?: string;
  /** Header pairs in order; a name may repeat. */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  /** Sent in these chunks (chunked transfer unless a Content-Length is among the headers). */
  readonly chunks?: ReadonlyArray<string | Uint8Array>;
}

/** Sends one request over a real socket and collects the answer, within a deadline. */
function send(port: number, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Raw header pairs keep repeats, but then node adds no Host: send it first, as a client does.
    const headers: string[] = ['host', `127.0.0.1:${port}`];
    for (const [name, value] of sent.headers ?? []) headers.push(name, value);
    const outgoing = request({
      host: '127.0.0.1',
      port,
      method: sent.method ?? 'POST',
      path: sent.path ?? '/plants',
      headers,
      agent: false,
    });
    const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString(),
        });
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    for (const chunk of sent.chunks ?? []) outgoing.write(chunk);
    outgoing.end();
  });
}

/** The answer's headers as a `Headers`, for the OpenAPI check. */
function headersOf(answer: Answer): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

const json = { 'content-type': 'application/json' } as const;
const bearer = ['authorization', `Bearer ${TOKEN}`] as const;
const typed = ['content-type', 'application/json'] as const;
const ORIGIN = 'http://app.test:8080';
const origin = ['origin', ORIGIN] as const;

/** Requests covering every rule of the contract, sent to both paths. */
const requests: Record<string, (id: number) => Sent> = {
  'a create': (id) => ({ headers: [bearer, typed], chunks: [`{"id":${id},"name":"a"}`] }),
  'a create with a query string': (id) => ({
    path: '/plants?x=1',
    headers: [bearer, typed],
    chunks: [`{"id":${id},"name":"a","tag":"t"}`],
  }),
  'a create in many chunks': (id) => ({
    headers: [bearer, typed],
    chunks: ['{"id":', `${id}`, ',"name":"a', '\u20ac"}'],
  }),
  'a replay and a conflict': (id) => ({
    headers: [bearer, typed],
    chunks: [`{"id":${id % 2},"name":"same"}`],
  }),
  'GET /plants': () => ({ method: 'GET' }),
  'HEAD /plants': () => ({ method: 'HEAD' }),
  'DELETE /plants': () => ({ method: 'DELETE', headers: [bearer] }),
  'no token': () => ({ headers: [typed], chunks: ['{}'] }),
  'another scheme': () => ({ headers: [['authorization', 'Basic abc'], typed], chunks: ['{}'] }),
  'a rejected token': () => ({
    headers: [['authorization', 'Bearer nope'], typed],
    chunks: ['{}'],
  }),
  'two Authorization headers': () => ({ headers: [bearer, bearer, typed], chunks: ['{}'] }),
  'no body': () => ({ headers: [bearer, typed] }),
  'Content-Length: 0': () => ({ headers: [bearer, typed, ['content-length', '0']] }),
  // Zero however spelled is no body, so the presence check answers before the media type.
  'Content-Length: 00 and text/plain': () => ({
    headers: [bearer, ['content-type', 'text/plain'], ['content-length', '00']],
  }),
  'an empty chunked body': () => ({ headers: [bearer, typed], chunks: [''] }),
  'no Content-Type': () => ({ headers: [bearer], chunks: ['{"id":1,"name":"a"}'] }),
  'text/plain': () => ({ headers: [bearer, ['content-type', 'text/plain']], chunks: ['{}'] }),
  'two Content-Types': () => ({ headers: [bearer, typed, typed], chunks: ['{}'] }),
  'charset latin1': () => ({
    headers: [bearer, ['content-type', 'application/json; charset=latin1']],
    chunks: ['{}'],
  }),
  'a Content-Length over the limit': () => ({
    headers: [bearer, typed, ['content-length', '102401']],
    chunks: [' '.repeat(102_401)],
  }),
  'a chunked body over the limit': () => ({
    headers: [bearer, typed],
    chunks: Array.from({ length: 8 }, () => ' '.repeat(16_384)),
  }),
  'invalid UTF-8': () => ({
    headers: [bearer, typed],
    chunks: [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
  }),
  'invalid JSON': () => ({ headers: [bearer, typed], chunks: ['{"id":1,'] }),
  'a bad id': () => ({ headers: [bearer, typed], chunks: ['{"id":1.5,"name":"a"}'] }),
  'a huge exact id': () => ({
    headers: [bearer, typed],
    chunks: ['{"id":9223372036854775807,"name":"max"}'],
  }),
  'a lone surrogate': () => ({ headers: [bearer, typed], chunks: ['{"id":3,"name":"\\ud800"}'] }),
  'GET /openapi.json': () => ({ method: 'GET', path: '/openapi.json' }),
  'an unknown path': () => ({ method: 'POST', path: '/plants/1', headers: [bearer] }),
  // CORS (#23): the fast path picks Origin and Access-Control-Request-Method from rawHeaders.
  'a preflight from an allowed origin': () => ({
    method: 'OPTIONS',
    headers: [origin, ['access-control-request-method', 'POST']],
  }),
  'a preflight with odd header spellings': () => ({
    method: 'OPTIONS',
    headers: [
      ['oRiGiN', ORIGIN],
      ['ACCESS-CONTROL-REQUEST-METHOD', 'POST'],
      ['accept', '*/*'],
      ['cookie', 'a=b'],
    ],
  }),
  'a preflight from another origin': () => ({
    method: 'OPTIONS',
    headers: [
      ['origin', 'https://evil.test'],
      ['access-control-request-method', 'POST'],
    ],
  }),
  'two Origin headers': () => ({
    method: 'OPTIONS',
    headers: [origin, origin, ['access-control-request-method', 'POST']],
  }),
  'OPTIONS from an allowed origin, not a preflight': () => ({
    method: 'OPTIONS',
    headers: [origin],
  }),
  'a create from an allowed origin': (id) => ({
    headers: [origin, bearer, typed],
    chunks: [`{"id":${id},"name":"a"}`],
  }),
  'a rejected token from an allowed origin': () => ({
    headers: [origin, ['authorization', 'Bearer nope'], typed],
    chunks: ['{}'],
  }),
  'an unknown path from an allowed origin': () => ({
    method: 'GET',
    path: '/x',
    headers: [origin],
  }),
};

/** The headers both paths must send alike. */
const COMPARED = [
  'content-type',
  'allow',
  'www-authenticate',
  'vary',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
];

describe('toNodeListener on a plant store', () => {
  const servers: Server[] = [];
  interface Trio {
    readonly store: PlantStore;
    readonly fast: number;
    readonly waiting: number;
    readonly generic: number;
  }
  let plain: Trio;
  let withCors: Trio;
  let fastPort = 0;

  async function listen(handler: (request: Request) => Promise<Response>): Promise<number> {
    // As `serve` does: the listener, not node, answers a missing Host.
    const server = createServer({ requireHostHeader: false }, toNodeListener(handler));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** The three listeners of one configuration: fast, fast with promises, generic. */
  async function trio(extra: Partial<CreatePlantStoreOptions>): Promise<Trio> {
    const options = { verifier: createStaticTokenVerifier([TOKEN]), ...extra };
    const fastStore = createPlantStore({ ...options, repository: createMemoryRepository() });
    const genericStore = createPlantStore({ ...options, repository: createMemoryRepository() });
    // The fast path again, with collaborators that answer with promises: its waiting side.
    const verifier = createStaticTokenVerifier([TOKEN]);
    const repository = createMemoryRepository();
    const waitingStore = createPlantStore({
      ...extra,
      verifier: { verify: async (token, context) => verifier.verify(token, context) },
      repository: { create: async (plant, context) => repository.create(plant, context) },
    });
    return {
      store: fastStore,
      fast: await listen(fastStore.fetch),
      waiting: await listen(waitingStore.fetch),
      // A wrapped handler is not one the listener knows: it gets a native Request.
      generic: await listen((request) => genericStore.fetch(request)),
    };
  }

  before(async () => {
    plain = await trio({});
    withCors = await trio({ cors: createCors({ origins: [ORIGIN] }) });
    fastPort = plain.fast;
  });

  after(() => {
    for (const server of servers) server.closeAllConnections();
    for (const server of servers) server.close();
  });

  it('answers every request exactly as the generic Request/Response path does, CORS off and on', async () => {
    let id = 1000;
    for (const [config, ports] of [
      ['CORS off', plain],
      ['CORS on', withCors],
    ] as const) {
      for (const [name, make] of Object.entries(requests)) {
        for (let round = 0; round < 4; round++) {
          // Even rounds: collaborators that answer at once; odd rounds: with promises.
          const port = round % 2 === 0 ? ports.fast : ports.waiting;
          if (round % 2 === 0) id++;
          const [fast, generic] = await Promise.all([
            send(port, make(id)),
            send(ports.generic, make(id)),
          ]);
          const context = `${name} (${config}, round ${round})`;
          // Guard the comparison itself: these must really succeed, not fail alike on both paths.
          if (name.startsWith('a create'))
            assert.equal(fast.status, 200, `${context}: ${fast.body}`);
          if (name.startsWith('Content-Length: 00')) assert.equal(fast.status, 400, context);
          if (name.startsWith('a preflight from an allowed') || name.includes('odd header')) {
            assert.equal(fast.status, config === 'CORS on' ? 204 : 405, context);
          }
          if (config === 'CORS on' && name.endsWith('from an allowed origin')) {
            assert.equal(fast.headers['access-control-allow-origin'], ORIGIN, context);
          }
          assert.equal(fast.status, generic.status, context);
          // The served document names the server it came from: here two, on two ports.
          const own = (answer: Answer, port: number) =>
            answer.body.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:<port>');
          assert.equal(own(fast, port), own(generic, ports.generic), context);
          for (const header of COMPARED) {
            assert.equal(fast.headers[header], generic.headers[header], `${context}: ${header}`);
          }
          // HEAD and a preflight's 204 have no body, and the document has its own test.
          if (name === 'HEAD /plants' || name === 'GET /openapi.json') continue;
          if (fast.status === 204) {
            // RFC 9110 section 8.6: no Content-Length on a 204.
            assert.equal(fast.headers['content-length'], undefined, context);
            assert.equal(generic.headers['content-length'], undefined, context);
            continue;
          }
          const where =
            fast.status === 404
              ? 'NotFound'
              : fast.status === 405
                ? 'MethodNotAllowed'
                : 'createPlant';
          await assertMatchesOpenApi(
            new Response(fast.body, { status: fast.status, headers: headersOf(fast) }),
            where,
          );
        }
      }
    }
  });

  it('answers a missing Host with the same 400 Error body on both paths', async () => {
    const raw = 'POST /plants HTTP/1.1\r\ncontent-length: 0\r\n\r\n';
    const answers = await Promise.all(
      [plain.fast, plain.generic].map(
        (port) =>
          new Promise<string>((resolve, reject) => {
            import('node:net').then(({ connect }) => {
              const socket = connect(port, '127.0.0.1', () => socket.end(raw));
              let text = '';
              socket.on('data', (chunk) => {
                text += chunk;
              });
              socket.on('close', () => resolve(text));
              socket.on('error', reject);
              setTimeout(() => reject(new Error('no answer')), 5000).unref();
            });
          }),
      ),
    );
    for (const answer of answers) {
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /\{"error":400,"message":"the Host header is missing or not valid"\}$/);
    }
  });

  it('builds no Request, Response or AbortController for a create', async () => {
    const built = { Request: 0, Response: 0, AbortController: 0 };
    const originals = { ...built } as Record<keyof typeof built, unknown>;
    for (const name of Object.keys(built) as Array<keyof typeof built>) {
      const Original = globalThis[name] as unknown as new (...args: never[]) => object;
      originals[name] = Original;
      // A counting subclass in the global slot: whatever the path builds by name is counted.
      (globalThis as Record<string, unknown>)[name] = class extends Original {
        constructor(...args: never[]) {
          super(...args);
          built[name]++;
        }
      };
    }
    let answer: Answer;
    try {
      answer = await send(fastPort, requests['a create']?.(777_777) as Sent);
    } finally {
      Object.assign(globalThis, originals);
    }
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(built, { Request: 0, Response: 0, AbortController: 0 });
  });

  it('still gives a repository that reads it a signal that fires when the client goes', async () => {
    let seen: AbortSignal | undefined;
    const reported: unknown[] = [];
    const store = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      repository: {
        create(_plant, context) {
          seen = context.signal;
          return new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          );
        },
      },
      // A throw inside onError would only reach stderr: collect, then assert.
      onError: (error) => reported.push(error),
    });
    const port = await listen(store.fetch);
    const outgoing = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/plants',
      headers: { ...json, authorization: `Bearer ${TOKEN}` },
    });
    outgoing.on('error', () => {});
    outgoing.end('{"id":1,"name":"a"}');
    const deadline = Date.now() + 5000;
    while (seen === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.ok(seen, 'the repository was called');
    outgoing.destroy();
    while (!seen.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(seen.aborted, true);
    assert.equal((seen.reason as DOMException).name, 'AbortError');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(reported, [], 'a client that left is not an error');
  });

  it('answers 500 and tells onError to mount the store first when a body parser read the body', async () => {
    // What express.json() does in front of a route: read the whole body, then set req.body. Once
    // this answered "400 request body is required", which sent the user the wrong way.
    const errors: unknown[] = [];
    const store = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      onError: (error) => errors.push(error),
    });
    for (const handler of [store.fetch, store.handleCreatePlant, (r: Request) => store.fetch(r)]) {
      errors.length = 0;
      const listener = toNodeListener(handler);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          (req as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString());
          listener(req, res);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const answer = await send(port, requests['a create']?.(31) as Sent);
      assert.equal(answer.status, 500);
      assert.equal(
        answer.body,
        '{"error":500,"message":"internal error: the request body was read before plant-store; mount plant-store before any body parser"}',
      );
      assert.equal(errors.length, 1);
      const error = errors[0] as { code?: string; message?: string };
      assert.equal(error.code, 'ERR_BODY_ALREADY_READ');
      assert.match(String(error.message), /body was read before plant-store/);
      assert.match(String(error.message), /mount plant-store before any body parser/);
    }
  });
});
