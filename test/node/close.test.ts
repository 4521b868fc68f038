/**
 * `serve`'s `close()` as a sequence, over real sockets: answers in flight and after say
 * `Connection: close`, `shutdownDelay` keeps the server accepting while a load balancer notices,
 * and no connection is closed under a request that already reached the server.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serve } from '../../lib/node.ts';
import {
  delay,
  heldHandler,
  parseRawResponse,
  type RawClient,
  rawClient,
  splitResponses,
  withDeadline,
} from '../support/node-helpers.ts';

const GET = (path = '/') => `GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`;

/** A raw client that sent one request and read its answer: an idle keep-alive connection. */
async function idleClient(port: number): Promise<RawClient> {
  const client = await rawClient(port);
  client.socket.write(GET());
  await client.waitFor(/^HTTP\/1\.1 200 [^]*\r\n0\r\n\r\n$/, 'a first answer');
  return client;
}

/** The `Connection` header of each answer received, in order. */
function connectionHeaders(client: RawClient): (string | undefined)[] {
  return splitResponses(client.text()).map((text) =>
    parseRawResponse(text).headers.get('connection'),
  );
}

describe('serve close()', () => {
  it('answers a request that reached an idle connection as close() was called, with Connection: close', async () => {
    // Closing an idle keep-alive connection at once reset it under a request the client had
    // just written on it: a balancer does not replay a request it already sent.
    for (let round = 0; round < 5; round++) {
      const handle = await serve({ fetch: () => new Response('ok'), port: 0 });
      const client = await idleClient(handle.port);
      client.socket.write(GET('/second'));
      const closed = handle.close();
      await withDeadline(client.closed, 'the connection to close after its answer');
      assert.deepEqual(connectionHeaders(client), ['keep-alive', 'close'], `round ${round}`);
      await withDeadline(closed, 'close() to resolve');
    }
  });

  it('has an answer in flight when close() is called say Connection: close, then closes', async () => {
    // It said keep-alive, and the connection closed a moment later: a request the client sent
    // in that moment was reset.
    const held = heldHandler();
    const handle = await serve({
      fetch: held.fetch,
      port: 0,
    });
    const client = await rawClient(handle.port);
    client.socket.write(GET());
    await withDeadline(held.entered.promise, 'the request to reach the handler');
    const closed = handle.close();
    held.release.open();
    await withDeadline(client.closed, 'the connection to close after its answer');
    assert.deepEqual(connectionHeaders(client), ['close']);
    await withDeadline(closed, 'close() to resolve');
  });

  it('keeps accepting and serving for shutdownDelay, every answer saying Connection: close, then stops', async () => {
    const handle = await serve({ fetch: () => new Response('ok'), port: 0, shutdownDelay: 400 });
    const kept = await idleClient(handle.port);
    const started = performance.now();
    const closed = handle.close();
    // A new connection, and the kept one, are still served while the balancer looks.
    const fresh = await fetch(handle.url);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.get('connection'), 'close');
    kept.socket.write(GET('/again'));
    await withDeadline(kept.closed, 'the kept connection to close after its answer');
    assert.deepEqual(connectionHeaders(kept), ['keep-alive', 'close']);
    await withDeadline(closed, 'close() to resolve after the delay');
    assert.ok(performance.now() - started >= 390, 'close() waited for shutdownDelay');
    await assert.rejects(withDeadline(fetch(handle.url), 'a fetch after close'));
  });

  it('closes an idle keep-alive connection once it stops accepting, without waiting for its timeout', async () => {
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      keepAliveTimeout: 60_000,
    });
    const client = await idleClient(handle.port);
    await withDeadline(handle.close(), 'close() with an idle connection open', 2000);
    await withDeadline(client.closed, 'the idle connection to be closed');
    await delay(10);
    assert.deepEqual(connectionHeaders(client), ['keep-alive']);
  });

  it('throws a TypeError when shutdownDelay is not a non-negative integer', () => {
    for (const shutdownDelay of [-1, 1.5, Number.NaN]) {
      assert.throws(() => serve({ fetch: () => new Response(), shutdownDelay }), {
        name: 'TypeError',
        message: 'shutdownDelay must be a non-negative integer',
      });
    }
  });
});
