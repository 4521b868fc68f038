/**
 * `toNodeListener` on `node:http2` servers, over real h2c and h2 connections: every answer as
 * over HTTP/1.1, the authority from `:authority` and what a client may send in its place (no
 * authority, two that disagree, odd request targets), bodies framed by DATA frames alone (one
 * sent for ever among them), responses without HTTP/1.1's connection fields, and clients that
 * leave (a reset mid-body or mid-create, a GOAWAY in the middle of a create).
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type ClientHttp2Session, constants } from 'node:http2';
import { createServer } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import {
  type CreatePlantStoreOptions,
  createMemoryRepository,
  type PlantRepository,
} from '../../lib/index.ts';
import { toNodeListener } from '../../lib/node.ts';
import { testStore, TOKEN } from '../support/fakes.ts';
import {
  answerOf,
  FRAME,
  fetchOver,
  type Http2TestServer,
  http11Fetch,
  http2Request,
  listenHttp2,
  rawHttp2,
} from '../support/http2-helpers.ts';
import {
  assertAnswersAsFetch,
  MOUNT_CASES,
  TOKEN as MOUNT_TOKEN,
  type MountCase,
} from '../support/mount-helpers.ts';
import { delay, gate, withDeadline } from '../support/node-helpers.ts';
import { noOpenssl, selfSigned } from '../support/tls.ts';

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };
const noTls = noOpenssl();
const tls = noTls === false ? selfSigned() : undefined;

/**
 * The mount helpers' cases (with this file's token), then what HTTP/2 frames differently: HEAD,
 * OPTIONS, a body over the limit.
 */
const CASES: readonly MountCase[] = [
  ...MOUNT_CASES.map((rule) =>
    rule.headers?.authorization === `Bearer ${MOUNT_TOKEN}`
      ? { ...rule, headers: { ...rule.headers, ...auth } }
      : rule,
  ),
  { name: 'HEAD on the document', method: 'HEAD', path: '/openapi.json' },
  { name: 'HEAD on /plants', method: 'HEAD', path: '/plants', headers: auth },
  { name: 'OPTIONS on /plants', method: 'OPTIONS', path: '/plants' },
  {
    name: 'a body over the limit',
    method: 'POST',
    path: '/plants',
    headers: json,
    body: JSON.stringify({ id: 3, name: 'x'.repeat(2000) }),
  },
];

/** Describes the request a handler got, as JSON. */
async function echo(request: Request): Promise<Response> {
  return Response.json({
    url: request.url,
    headers: [...request.headers],
    body: request.body === null ? null : await request.text(),
  });
}

describe('toNodeListener on node:http2', () => {
  const servers: Http2TestServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  /** A store with the test token (and `maxBodyBytes: 1000`), served over HTTP/2. */
  async function h2Store(
    options: Partial<CreatePlantStoreOptions> = {},
    secure?: { allowHTTP1: boolean },
  ) {
    const { store, repository, onError } = testStore({ maxBodyBytes: 1000, ...options });
    const server = await listenHttp2(
      toNodeListener(store.fetch),
      secure === undefined ? undefined : { ...(tls as { key: Buffer; cert: Buffer }), ...secure },
    );
    servers.push(server);
    return { server, session: await server.connect(), repository, onError };
  }

  /**
   * Asserts that every case gets over `session` the answer an HTTP/1.1 server (over TLS when
   * `secure`) gives it: each request names the HTTP/1.1 server's authority, so the document
   * names the same origin.
   */
  async function assertAnswersAsHttp11(session: ClientHttp2Session, secure = false): Promise<void> {
    const listener = toNodeListener(testStore({ maxBodyBytes: 1000 }).store.fetch);
    const http11 = secure
      ? createHttpsServer(tls as ServerOptions, listener)
      : createServer(listener);
    await new Promise<void>((resolve) => http11.listen(0, '127.0.0.1', resolve));
    after(() => http11.close());
    const { port } = http11.address() as AddressInfo;
    const authority = `127.0.0.1:${port}`;
    await assertAnswersAsFetch(
      `${secure ? 'https' : 'http'}://${authority}`,
      async (request) => {
        const body = request.body === null ? null : await request.text();
        return http11Fetch(
          request.url,
          { method: request.method, headers: request.headers, body },
          tls?.cert,
        );
      },
      CASES,
      fetchOver(session, { authority }),
    );
  }

  describe('answers as over HTTP/1.1', () => {
    it('answers every request as an HTTP/1.1 server does when served over h2c', async () => {
      const { session, onError } = await h2Store();
      await assertAnswersAsHttp11(session);
      assert.equal(onError.mock.callCount(), 0);
    });

    it(
      'answers every request as an HTTP/1.1 server does when served over h2',
      { skip: noTls },
      async () => {
        const { session } = await h2Store({}, { allowHTTP1: false });
        await assertAnswersAsHttp11(session, true);
      },
    );

    it(
      'answers an h2 client and an HTTP/1.1 client alike when allowHTTP1 is on',
      { skip: noTls },
      async () => {
        const { server, session } = await h2Store({}, { allowHTTP1: true });
        await assertAnswersAsHttp11(session, true);
        const overHttp11 = (path: string, headers: Record<string, string>, body: string) =>
          http11Fetch(`${server.url}${path}`, { method: 'POST', headers, body }, tls?.cert);
        const created = await overHttp11('/plants', json, '{"id": 42, "name": "Fern"}');
        assert.equal(created.status, 200);
        assert.equal(await created.text(), '{"name":"Fern"}');
        const refused = await overHttp11('/plants', { 'content-type': 'application/json' }, '{}');
        assert.equal(refused.status, 401);
        // The plant the HTTP/1.1 client stored is the one an h2 client replays.
        const replay = await http2Request(
          session,
          'POST',
          '/plants',
          json,
          '{"id": 42, "name": "Fern"}',
        );
        assert.equal(replay.status, 200);
      },
    );

    it(
      'builds an https URL from :authority when the connection is TLS',
      { skip: noTls },
      async () => {
        const server = await listenHttp2(toNodeListener(echo), tls);
        servers.push(server);
        const answer = await http2Request(await server.connect(), 'GET', '/x?y=1');
        assert.equal(JSON.parse(answer.body).url, `${server.url}/x?y=1`);
      },
    );
  });

  describe('the authority', () => {
    it('builds the URL from :authority and gives the handler a Host header when the client sends only :authority', async () => {
      const server = await listenHttp2(toNodeListener(echo));
      servers.push(server);
      const session = await server.connect();
      const answer = await http2Request(session, 'GET', '/plants?x=1', {
        ':authority': 'example.test:8080',
        'x-many': ['one', 'two'],
      });
      const seen = JSON.parse(answer.body);
      assert.equal(seen.url, 'http://example.test:8080/plants?x=1');
      const headers = new Map<string, string>(seen.headers);
      assert.equal(headers.get('host'), 'example.test:8080');
      assert.equal(headers.get('x-many'), 'one, two');
      assert.ok(![...headers.keys()].some((name) => name.startsWith(':')), seen.headers);
      assert.equal(seen.body, null);
    });

    it('takes the authority from Host when an HTTP/2 client sends no :authority', async () => {
      const server = await listenHttp2(toNodeListener(echo));
      servers.push(server);
      // node's client sends Host in place of :authority when it is given one (RFC 9113 8.3.1).
      const answer = await http2Request(await server.connect(), 'GET', '/x', { host: 'a.test' });
      assert.equal(JSON.parse(answer.body).url, 'http://a.test/x');
    });

    it('answers 400 when Host names another authority than :authority', async () => {
      const { session, repository } = await h2Store();
      const answer = await http2Request(
        session,
        'POST',
        '/plants',
        { ...json, ':authority': 'a.test', host: 'b.test' },
        '{"id": 1, "name": "Fern"}',
      );
      assert.equal(answer.status, 400);
      assert.deepEqual(JSON.parse(answer.body), {
        error: 400,
        message: 'the Host header names another authority than :authority',
      });
      assert.equal(repository.create.mock.callCount(), 0);
    });

    it('accepts a Host that differs from :authority only in case or a default port', async () => {
      const { session } = await h2Store();
      for (const [authority, host] of [
        ['A.Test', 'a.test'],
        ['a.test', 'a.test:80'],
        ['a.test:', 'a.test'],
      ]) {
        const answer = await http2Request(
          session,
          'POST',
          '/plants',
          { ...json, ':authority': authority, host },
          '{"id": 1, "name": "Fern"}',
        );
        assert.equal(answer.status, 200, `${authority} and ${host}`);
      }
    });

    it('refuses a request that names no authority, and answers 400 to a malformed one', async () => {
      const { server, repository } = await h2Store();
      const raw = await rawHttp2(server.port);
      const fields = (authority: [string, string][]) => [
        [':method', 'POST'] as const,
        [':scheme', 'http'] as const,
        [':path', '/plants'] as const,
        ...authority,
        ['authorization', `Bearer ${TOKEN}`] as const,
        ['content-type', 'application/json'] as const,
      ];
      const plant = '{"id": 1, "name": "Fern"}';
      raw.headers(1, fields([]), false);
      raw.data(1, plant, true);
      raw.headers(3, fields([[':authority', 'a.test:80:80']]), false);
      raw.data(3, plant, true);
      // userinfo would move the host a URL names: `http://evil.test@a.test/` is a.test.
      raw.headers(5, fields([[':authority', 'evil.test@a.test']]), false);
      raw.data(5, plant, true);
      // Neither :authority nor Host: node's HTTP/2 layer resets the stream as malformed itself.
      const [refused] = await raw.ended(1, 'the refusal on stream 1');
      assert.equal(refused?.type, FRAME.RST_STREAM);
      assert.equal(refused?.payload.readUInt32BE(0), constants.NGHTTP2_PROTOCOL_ERROR);
      const invalid = { error: 400, message: 'the :authority (or Host) is missing or not valid' };
      await raw.ended(3, 'the answer on stream 3');
      assert.deepEqual(JSON.parse(raw.body(3)), invalid);
      // Node 22 and later (nghttp2 1.70) reset a userinfo :authority before the listener.
      const [first] = await raw.ended(5, 'the answer on stream 5');
      if (first?.type !== FRAME.RST_STREAM) assert.deepEqual(JSON.parse(raw.body(5)), invalid);
      raw.close();
      assert.equal(repository.create.mock.callCount(), 0);
    });
  });

  describe('bodies', () => {
    it('answers 400 "request body is required" when the HEADERS frame ends the stream', async () => {
      const { session, repository } = await h2Store();
      // No Content-Length and no Transfer-Encoding, as on HTTP/1.1: END_STREAM says it.
      const answer = await http2Request(session, 'POST', '/plants', json);
      assert.equal(answer.status, 400);
      assert.deepEqual(JSON.parse(answer.body), {
        error: 400,
        message: 'request body is required',
      });
      assert.equal(repository.create.mock.callCount(), 0);
    });

    it('creates a plant when the body comes in several DATA frames without Content-Length', async () => {
      const { session } = await h2Store();
      const stream = session.request({ ':method': 'POST', ':path': '/plants', ...json });
      stream.write('{"id": 9007199254740993,');
      await delay(20);
      stream.end(' "name": "Monstera"}');
      const answer = await withDeadline(answerOf(stream), 'the create');
      assert.equal(answer.status, 200);
      assert.equal(answer.body, '{"name":"Monstera"}');
    });

    it('hands a handler the body when it comes without Content-Length, and none when HEADERS ends the stream', async () => {
      const server = await listenHttp2(toNodeListener(echo));
      servers.push(server);
      const session = await server.connect();
      const withBody = await http2Request(session, 'PUT', '/x', {}, 'some text');
      assert.equal(JSON.parse(withBody.body).body, 'some text');
      const without = await http2Request(session, 'POST', '/x');
      assert.equal(JSON.parse(without.body).body, null);
    });

    it('answers 413, then resets the stream, when a client sends DATA for ever, and serves the connection on', async () => {
      const { session, repository } = await h2Store();
      const endless = session.request({ ':method': 'POST', ':path': '/plants', ...json });
      const answered = answerOf(endless);
      const chunk = Buffer.alloc(16_384, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (!endless.closed && !endless.destroyed) {
          sent += chunk.length;
          if (!endless.write(chunk)) {
            endless.once('drain', pump);
            return;
          }
        }
      };
      pump();
      const beside = http2Request(session, 'POST', '/plants', json, '{"id": 7, "name": "Pilea"}');
      const answer = await withDeadline(answered, 'the 413 and the end of the endless stream');
      assert.equal(answer.status, 413);
      assert.deepEqual(JSON.parse(answer.body), {
        error: 413,
        message: 'request body is larger than 1000 bytes',
      });
      // RST_STREAM with NO_ERROR: "stop sending", the response kept (RFC 9113 section 8.1).
      assert.equal(answer.rstCode, constants.NGHTTP2_NO_ERROR);
      const sentAtClose = sent;
      await delay(50);
      assert.equal(sent, sentAtClose, 'the client stopped sending');
      assert.equal((await beside).status, 200);
      assert.equal((await http2Request(session, 'GET', '/openapi.json')).status, 200);
      assert.equal(repository.create.mock.callCount(), 1);
    });

    it('sends 100 Continue, then creates, when the client waits for it', async () => {
      const { session } = await h2Store();
      const stream = session.request(
        { ':method': 'POST', ':path': '/plants', ...json, expect: '100-continue' },
        { endStream: false },
      );
      const answered = answerOf(stream);
      await withDeadline(
        new Promise<void>((resolve) => stream.once('continue', resolve)),
        'the 100 Continue',
      );
      stream.end('{"id": 8, "name": "Hoya"}');
      const answer = await answered;
      assert.equal(answer.status, 200);
      assert.equal(answer.body, '{"name":"Hoya"}');
    });
  });

  describe('responses', () => {
    it("drops the connection-specific headers and the status text of a handler's Response", async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      const errors: unknown[] = [];
      const server = await listenHttp2(
        toNodeListener(
          () =>
            new Response('fine', {
              status: 202,
              statusText: 'Quite Accepted',
              headers: {
                connection: 'keep-alive',
                'keep-alive': 'timeout=5',
                'transfer-encoding': 'chunked',
                upgrade: 'h2c',
                'x-kept': 'yes',
              },
            }),
          { onError: (error) => errors.push(error) },
        ),
      );
      servers.push(server);
      const answer = await http2Request(await server.connect(), 'GET', '/');
      await delay(10);
      process.off('warning', onWarning);
      assert.equal(answer.status, 202);
      assert.equal(answer.body, 'fine');
      assert.equal(answer.headers['x-kept'], 'yes');
      for (const name of ['connection', 'keep-alive', 'transfer-encoding', 'upgrade']) {
        assert.equal(answer.headers[name], undefined, name);
      }
      assert.deepEqual(errors, []);
      assert.deepEqual(warnings, []);
    });
  });

  describe('clients that leave', () => {
    /** A repository whose creates wait until their signal aborts or `release` opens. */
    function waitingRepository() {
      const inner = createMemoryRepository();
      const entered = gate<AbortSignal>();
      const release = gate();
      const repository: PlantRepository = {
        async create(plant, context) {
          entered.open(context.signal);
          await Promise.race([
            release.promise,
            new Promise((resolve) => context.signal.addEventListener('abort', resolve)),
          ]);
          context.signal.throwIfAborted();
          return inner.create(plant, context);
        },
      };
      return { repository, entered: entered.promise, release: () => release.open() };
    }

    /** Resolves once `signal` aborted. */
    function aborted(signal: AbortSignal): Promise<void> {
      return withDeadline(
        new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve());
        }),
        "the repository's signal to abort",
      );
    }

    it('creates nothing and reports nothing when the client resets the stream mid-body', async () => {
      const { server, repository, onError } = await h2Store();
      const raw = await rawHttp2(server.port);
      const fields = (path: string, method = 'POST') =>
        [
          [':method', method],
          [':scheme', 'http'],
          [':path', path],
          [':authority', 'a.test'],
          ['authorization', `Bearer ${TOKEN}`],
          ['content-type', 'application/json'],
        ] as const;
      raw.headers(1, fields('/plants'), false);
      // A whole plant, but no END_STREAM: more of the body may follow.
      raw.data(1, '{"id": 5, "name": "Fern"}', false);
      await delay(20);
      raw.reset(1, constants.NGHTTP2_CANCEL);
      raw.headers(3, fields('/openapi.json', 'GET'), true);
      await raw.ended(3, 'the document after the reset');
      assert.match(raw.body(3), /"openapi":"3\.1\.0"/);
      await delay(20);
      raw.close();
      assert.equal(repository.create.mock.callCount(), 0);
      assert.equal(onError.mock.callCount(), 0);
    });

    it('creates nothing and reports nothing when the client resets the stream while its token is checked', async () => {
      const checking = gate();
      const verdict = gate();
      const { session, repository, onError } = await h2Store({
        verifier: {
          async verify() {
            checking.open();
            await verdict.promise;
            return { valid: true };
          },
        },
      });
      const stream = session.request({ ':method': 'POST', ':path': '/plants', ...json });
      stream.on('error', () => {});
      stream.end('{"id": 4, "name": "Fern"}');
      await withDeadline(checking.promise, 'the token check');
      stream.close(constants.NGHTTP2_CANCEL);
      await withDeadline(new Promise((resolve) => stream.once('close', resolve)), 'the reset');
      await delay(20);
      verdict.open();
      await delay(20);
      assert.equal(repository.create.mock.callCount(), 0);
      assert.equal(onError.mock.callCount(), 0);
    });

    it("fails a handler's body read, never handing it part of the body, when the client resets the stream mid-body", async () => {
      const read = gate<string>();
      const errors: unknown[] = [];
      const server = await listenHttp2(
        toNodeListener(
          async (request) => {
            const text = await request.text().then(
              (body) => `read: ${body}`,
              (error: Error) => `failed: ${error.name}`,
            );
            read.open(text);
            return new Response(text);
          },
          { onError: (error) => errors.push(error) },
        ),
      );
      servers.push(server);
      const raw = await rawHttp2(server.port);
      raw.headers(
        1,
        [
          [':method', 'PUT'],
          [':scheme', 'http'],
          [':path', '/x'],
          [':authority', 'a.test'],
        ],
        false,
      );
      raw.data(1, 'the first half', false);
      await delay(20);
      raw.reset(1, constants.NGHTTP2_CANCEL);
      assert.equal(await withDeadline(read.promise, "the handler's read"), 'failed: AbortError');
      await delay(20);
      raw.close();
      assert.deepEqual(errors, []);
    });

    it("aborts the repository's signal, reporting nothing, when the client resets the stream during a create", async () => {
      const waiting = waitingRepository();
      const { session, onError } = await h2Store({ repository: waiting.repository });
      const stream = session.request({ ':method': 'POST', ':path': '/plants', ...json });
      stream.on('error', () => {});
      stream.end('{"id": 6, "name": "Fern"}');
      const signal = await withDeadline(waiting.entered, 'the create to reach the repository');
      stream.close(constants.NGHTTP2_CANCEL);
      await aborted(signal);
      await delay(20);
      assert.equal(onError.mock.callCount(), 0);
    });

    it('serves the other streams of a connection on which one stream is reset mid-body', async () => {
      const { server, repository, onError } = await h2Store();
      const raw = await rawHttp2(server.port);
      const streams = Array.from({ length: 20 }, (_, i) => 2 * i + 1);
      const resetOne = 21;
      for (const id of streams) {
        raw.headers(
          id,
          [
            [':method', 'POST'],
            [':scheme', 'http'],
            [':path', '/plants'],
            [':authority', 'a.test'],
            ['authorization', `Bearer ${TOKEN}`],
            ['content-type', 'application/json'],
          ],
          false,
        );
        raw.data(id, `{"id": ${id}, `, false);
      }
      raw.reset(resetOne, constants.NGHTTP2_CANCEL);
      for (const id of streams) if (id !== resetOne) raw.data(id, `"name": "p${id}"}`, true);
      for (const id of streams) {
        if (id === resetOne) continue;
        await raw.ended(id, `the answer on stream ${id}`);
        assert.deepEqual(JSON.parse(raw.body(id)), { name: `p${id}` }, `stream ${id}`);
      }
      raw.close();
      const ids = repository.create.mock.calls.map((call) => call.arguments[0].id);
      assert.equal(ids.length, streams.length - 1);
      assert.ok(!ids.includes(BigInt(resetOne)));
      assert.equal(onError.mock.callCount(), 0);
    });

    it('finishes a create in flight when the client sends GOAWAY with NO_ERROR', async () => {
      const waiting = waitingRepository();
      const { session } = await h2Store({ repository: waiting.repository });
      const created = http2Request(session, 'POST', '/plants', json, '{"id": 10, "name": "Fern"}');
      await withDeadline(waiting.entered, 'the create to reach the repository');
      session.goaway(constants.NGHTTP2_NO_ERROR);
      await delay(20);
      waiting.release();
      const answer = await created;
      assert.equal(answer.status, 200);
      assert.equal(answer.body, '{"name":"Fern"}');
    });

    it("aborts the repository's signal, reporting nothing, when the client sends GOAWAY with an error", async () => {
      const waiting = waitingRepository();
      const { session, onError } = await h2Store({ repository: waiting.repository });
      http2Request(session, 'POST', '/plants', json, '{"id": 11, "name": "Fern"}').catch(() => {});
      const signal = await withDeadline(waiting.entered, 'the create to reach the repository');
      session.goaway(constants.NGHTTP2_INTERNAL_ERROR);
      await aborted(signal);
      await delay(20);
      assert.equal(onError.mock.callCount(), 0);
    });
  });

  describe('request targets', () => {
    it('answers 400 to OPTIONS * as over HTTP/1.1', async () => {
      const { session } = await h2Store();
      const answer = await http2Request(session, 'OPTIONS', '*');
      assert.equal(answer.status, 400);
      assert.deepEqual(JSON.parse(answer.body), {
        error: 400,
        message: 'the request target is not supported',
      });
    });

    it('routes CONNECT like any other method when the server hands it to the listener', async () => {
      const { store } = testStore();
      const listener = toNodeListener(store.fetch);
      const server = await listenHttp2(listener);
      servers.push(server);
      // node:http2 answers CONNECT with a bare 405 itself unless someone listens for it.
      server.server.on('connect', listener);
      const session = await server.connect();
      const answer = await http2Request(session, 'CONNECT', undefined, {
        ':authority': '127.0.0.1:443',
      });
      assert.equal(answer.status, 404);
      assert.deepEqual(JSON.parse(answer.body), { error: 404, message: 'not found' });
    });

    it('answers 404 to a 60,000-character :path and serves the connection on', async () => {
      const { session } = await h2Store();
      const answer = await http2Request(
        session,
        'POST',
        `/plants${'/x'.repeat(30_000)}`,
        json,
        '{}',
      );
      assert.equal(answer.status, 404);
      assert.deepEqual(JSON.parse(answer.body), { error: 404, message: 'not found' });
      const next = await http2Request(
        session,
        'POST',
        '/plants',
        json,
        '{"id": 12, "name": "Fern"}',
      );
      assert.equal(next.status, 200);
    });
  });
});
