/**
 * `serve({ http2: true })` over real h2c sessions: it answers as over HTTP/1.1, and its `close()`
 * sends every session GOAWAY and resolves promptly, whatever sessions clients left open, while
 * the requests in flight finish. Its HTTP/1.1-only options are refused beside it, and its limits
 * (a session's idle time, a request's time to arrive, the connection cap) hold.
 */

import assert from 'node:assert/strict';
import { type ClientHttp2Session, connect, type Http2Server } from 'node:http2';
import { request as httpRequest } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { describe, it } from 'node:test';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import { type RequestRecord, serve, type ServeHandle } from '../../lib/node.ts';
import { http2Request } from '../support/http2-helpers.ts';
import { delay, gate, heldHandler, withDeadline } from '../support/node-helpers.ts';

const TOKEN = 'h2-token';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

function newStore() {
  return createPlantStore({
    repository: createMemoryRepository(),
    verifier: createStaticTokenVerifier([TOKEN]),
  });
}

/** A client session to `handle`, with the GOAWAY it may receive. */
async function session(
  handle: ServeHandle<Http2Server>,
): Promise<{ client: ClientHttp2Session; goaway: Promise<number> }> {
  const client = connect(handle.url);
  client.on('error', () => {});
  const goaway = new Promise<number>((resolve) => client.once('goaway', resolve));
  await withDeadline(
    new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    }),
    'an h2c session',
  );
  return { client, goaway };
}

describe('serve({ http2: true })', () => {
  it('creates a plant over h2c as over HTTP/1.1, on a node:http2 server', async () => {
    const handle = await serve({ fetch: newStore().fetch, port: 0, http2: true });
    const { client } = await session(handle);
    try {
      const body = '{"id":9007199254740993,"name":"Monstera"}';
      const created = await http2Request(client, 'POST', '/plants', auth, body);
      assert.equal(created.status, 200);
      assert.equal(created.body, '{"name":"Monstera"}');
      // The neighbour a double would round it to is another plant: the id was kept exact.
      const neighbour = '{"id":9007199254740992,"name":"Fern"}';
      assert.equal((await http2Request(client, 'POST', '/plants', auth, neighbour)).status, 200);
      const missing = await http2Request(client, 'POST', '/plants', {}, body);
      assert.equal(missing.status, 401);
      assert.match(String(missing.headers['www-authenticate']), /^Bearer realm=/);
      assert.equal(handle.server.constructor.name, 'Http2Server');
    } finally {
      client.destroy();
      await handle.close();
    }
  });

  it('close() sends an idle session GOAWAY and resolves at once, the session left open', async () => {
    // node's own HTTP/2 close() waits until every client closes its session.
    const handle = await serve({ fetch: newStore().fetch, port: 0, http2: true });
    const { client, goaway } = await session(handle);
    await http2Request(client, 'GET', '/healthz');
    const started = performance.now();
    await withDeadline(handle.close(), 'close() with an idle session open', 2000);
    assert.equal(await withDeadline(goaway, 'GOAWAY'), 0);
    assert.ok(performance.now() - started < 1000, 'close() waited on the idle session');
    client.destroy();
  });

  it('lets a request in flight at close() finish on its session, then resolves', async () => {
    const held = heldHandler();
    const handle = await serve({
      fetch: held.fetch,
      port: 0,
      http2: true,
    });
    const { client, goaway } = await session(handle);
    const answer = http2Request(client, 'GET', '/slow');
    await withDeadline(held.entered.promise, 'the request to reach the handler');
    const closed = handle.close();
    await withDeadline(goaway, 'GOAWAY while the request is in flight');
    held.release.open();
    const { status, body } = await answer;
    assert.deepEqual({ status, body }, { status: 200, body: 'finished' });
    await withDeadline(closed, 'close() to resolve');
    client.destroy();
  });

  it('keeps serving new sessions for shutdownDelay, each sent GOAWAY after its request', async () => {
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      http2: true,
      shutdownDelay: 400,
    });
    const started = performance.now();
    const closed = handle.close();
    const late = await session(handle);
    const { status } = await http2Request(late.client, 'GET', '/');
    assert.equal(status, 200);
    await withDeadline(late.goaway, 'GOAWAY after the request');
    await withDeadline(closed, 'close() after the delay');
    assert.ok(performance.now() - started >= 390, 'stopped before shutdownDelay');
    late.client.destroy();
    const refused = connect(handle.url);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) =>
      refused.once('error', resolve),
    );
    assert.equal(error.code, 'ECONNREFUSED');
  });

  it('cuts a request that outlives shutdownTimeout and resolves', async () => {
    const entered = gate();
    const handle = await serve({
      fetch: () => {
        entered.open();
        return new Promise<Response>(() => {});
      },
      port: 0,
      http2: true,
      shutdownTimeout: 200,
      onError: () => {},
    });
    const { client } = await session(handle);
    const stream = client.request({ ':method': 'GET', ':path': '/' });
    stream.on('error', () => {});
    await withDeadline(entered.promise, 'the request to reach the handler');
    const started = performance.now();
    await withDeadline(handle.close(), 'close() past shutdownTimeout', 2000);
    assert.ok(performance.now() - started >= 190, 'cut before shutdownTimeout');
    client.destroy();
  });

  it('closes a session idle for keepAliveTimeout with GOAWAY', async () => {
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      http2: true,
      keepAliveTimeout: 200,
    });
    try {
      const { client, goaway } = await session(handle);
      await http2Request(client, 'GET', '/');
      assert.equal(await withDeadline(goaway, 'GOAWAY on an idle session', 2000), 0);
      client.destroy();
    } finally {
      await handle.close();
    }
  });

  it('lets a request outlive keepAliveTimeout in its handler, the session quiet meanwhile', async () => {
    // A slow repository must not have its request cut because the session went quiet.
    const handle = await serve({
      fetch: async () => {
        await delay(500);
        return new Response('slow');
      },
      port: 0,
      http2: true,
      keepAliveTimeout: 100,
    });
    try {
      const { client } = await session(handle);
      const { status, body, rstCode } = await http2Request(client, 'GET', '/');
      assert.deepEqual({ status, body, rstCode }, { status: 200, body: 'slow', rstCode: 0 });
      client.destroy();
    } finally {
      await handle.close();
    }
  });

  it('resets a stream whose body has not arrived within requestTimeout, and serves the rest', async () => {
    const handle = await serve({
      fetch: newStore().fetch,
      port: 0,
      http2: true,
      requestTimeout: 300,
      keepAliveTimeout: 5000,
    });
    try {
      const { client } = await session(handle);
      const stalled = client.request({ ':method': 'POST', ':path': '/plants', ...auth });
      stalled.on('error', () => {});
      stalled.write('{"id":1,');
      const closed = new Promise<void>((resolve) => stalled.once('close', resolve));
      await withDeadline(closed, 'the stalled stream to be reset', 2000);
      assert.notEqual(stalled.rstCode, 0);
      const created = await http2Request(client, 'POST', '/plants', auth, '{"id":2,"name":"Fern"}');
      assert.equal(created.status, 200);
      client.destroy();
    } finally {
      await handle.close();
    }
  });

  it('gives each request an id and a record, with bytes it cannot count as 0', async () => {
    const records: RequestRecord[] = [];
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      http2: true,
      requestIds: true,
      onRequestEnd: (record) => records.push(record),
    });
    const { client } = await session(handle);
    try {
      const answer = await http2Request(client, 'GET', '/x?y', { 'x-request-id': 'abc-1' });
      assert.equal(answer.headers['x-request-id'], 'abc-1');
      await delay(20);
      assert.equal(records.length, 1);
      const { durationMs, ...rest } = records[0] as RequestRecord;
      assert.deepEqual(rest, {
        requestId: 'abc-1',
        method: 'GET',
        path: '/x',
        status: 200,
        bytesIn: 0,
        bytesOut: 0,
      });
      assert.ok(durationMs >= 0);
    } finally {
      client.destroy();
      await handle.close();
    }
  });

  it('refuses a connection past maxConnections and tells onConnectionRefused', async () => {
    let refused = 0;
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      http2: true,
      maxConnections: 1,
      onConnectionRefused: () => refused++,
    });
    const first = await session(handle);
    try {
      const second = connect(handle.url);
      second.on('error', () => {});
      await withDeadline(
        new Promise((resolve) => second.once('close', resolve)),
        'the second connection to be dropped',
      );
      assert.equal(refused, 1);
      assert.equal((await http2Request(first.client, 'GET', '/')).status, 200);
    } finally {
      first.client.destroy();
      await handle.close();
    }
  });

  it('closes an HTTP/1.1 connection, which it does not speak, and goes on serving', async () => {
    const handle = await serve({ fetch: () => new Response('ok'), port: 0, http2: true });
    try {
      const outcome = await new Promise<string>((resolve) => {
        const request = httpRequest(`${handle.url}/`, (response) =>
          resolve(`${response.statusCode}`),
        );
        request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        request.end();
      });
      assert.match(outcome, /^(ECONNRESET|HPE_INVALID_CONSTANT|HPE_.*)$/);
      const { client } = await session(handle);
      assert.equal((await http2Request(client, 'GET', '/')).status, 200);
      client.destroy();
    } finally {
      await handle.close();
    }
  });

  it('answers 431 with the Error body to a head over maxHeaderSize, as over HTTP/1.1', async () => {
    // nghttp2 announces the limit and does not hold the client to it.
    const handle = await serve({
      fetch: newStore().fetch,
      port: 0,
      http2: true,
      maxHeaderSize: 1000,
    });
    const { client } = await session(handle);
    try {
      const big = await http2Request(
        client,
        'POST',
        '/plants',
        { ...auth, 'x-filler': 'a'.repeat(1000) },
        '{"id":3,"name":"Fern"}',
      );
      assert.equal(big.status, 431);
      assert.deepEqual(JSON.parse(big.body), {
        error: 431,
        message: 'request headers are too large',
      });
      // A different plant under the same id: 409 had the refused create been stored.
      const fits = await http2Request(client, 'POST', '/plants', auth, '{"id":3,"name":"Palm"}');
      assert.equal(fits.status, 200);
    } finally {
      client.destroy();
      await handle.close();
    }
  });

  it('routes CONNECT, answers Expect: 100-continue after the headers, survives a garbled session', async () => {
    const handle = await serve({ fetch: newStore().fetch, port: 0, http2: true });
    const { client } = await session(handle);
    try {
      // node:http2 would answer CONNECT with a bare 405 of its own.
      const connected = await http2Request(client, 'CONNECT', undefined, {
        ':authority': '127.0.0.1:443',
      });
      assert.equal(connected.status, 404);
      assert.deepEqual(JSON.parse(connected.body), { error: 404, message: 'not found' });
      // A wrong token is refused before the client sends the body it holds back.
      const stream = client.request({
        ':method': 'POST',
        ':path': '/plants',
        ...auth,
        authorization: 'Bearer wrong',
        expect: '100-continue',
      });
      let continued = false;
      stream.on('continue', () => {
        continued = true;
      });
      const status = await withDeadline(
        new Promise<unknown>((resolve) =>
          stream.once('response', (head) => resolve(head[':status'])),
        ),
        'an answer before the body',
      );
      assert.deepEqual({ status, continued }, { status: 401, continued: false });
      stream.close();
      // Bytes that are no HTTP/2 after the preface end that connection only.
      const garbled = connectTcp(handle.port, '127.0.0.1');
      garbled.on('error', () => {});
      garbled.resume();
      garbled.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      garbled.write(Buffer.alloc(64, 0xff));
      await withDeadline(
        new Promise((resolve) => garbled.once('close', resolve)),
        'the garbled connection to close',
      );
      assert.equal((await http2Request(client, 'GET', '/healthz')).status, 404);
    } finally {
      client.destroy();
      await handle.close();
    }
  });

  it('close() resolves at once beside a connection that never sent a byte', async () => {
    const handle = await serve({ fetch: () => new Response('ok'), port: 0, http2: true });
    const silent = connectTcp(handle.port, '127.0.0.1');
    silent.on('error', () => {});
    silent.resume();
    await new Promise((resolve) => silent.once('connect', resolve));
    await delay(50);
    await withDeadline(handle.close(), 'close() beside a silent connection', 1000);
    await withDeadline(
      new Promise((resolve) => (silent.destroyed ? resolve(null) : silent.once('close', resolve))),
      'the silent connection to close',
    );
  });

  it('refuses HTTP/1.1-only limits and a non-boolean http2, before anything listens', () => {
    const fetch = () => new Response('ok');
    for (const name of ['headersTimeout', 'connectionsCheckingInterval'] as const) {
      assert.throws(() => serve({ fetch, http2: true, [name]: 1000 }), {
        name: 'TypeError',
        message: new RegExp(`^${name} is HTTP/1\\.1's`),
      });
    }
    assert.throws(() => serve({ fetch, http2: 'yes' as unknown as boolean }), {
      name: 'TypeError',
      message: 'http2 must be a boolean',
    });
  });
});
