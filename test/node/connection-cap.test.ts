/**
 * `serve` at `maxConnections`, over real sockets: a cap on abuse, not on service. Idle
 * keep-alive connections make room for new clients (the one idle the longest first); a new
 * connection is refused, and reported, only while every open connection is busy.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ServeOptions, serve } from '../../lib/node.ts';
import { TOKEN, testStore } from '../support/fakes.ts';
import { rawPlantRequest } from '../support/fault-helpers.ts';
import {
  delay,
  gate,
  type RawClient,
  rawClient,
  splitResponses,
  withDeadline,
} from '../support/node-helpers.ts';

const GET = (path = '/') => `GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`;
const OK = /^HTTP\/1\.1 200 /;

/** A raw client that sent one request and read its answer: an idle keep-alive connection. */
async function idleClient(port: number, path = '/'): Promise<RawClient> {
  const client = await rawClient(port);
  client.socket.write(GET(path));
  await client.waitFor(/^HTTP\/1\.1 \d{3} /, 'a response on a new connection');
  return client;
}

/** Whether the server closed the connection within `ms`. */
async function closedWithin(client: RawClient, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const closed = await Promise.race([client.closed.then(() => true), late]);
  clearTimeout(timer);
  return closed;
}

/** `serve` on a free port, counting the new connections it refuses. */
async function servedCounting(options: ServeOptions) {
  let refused = 0;
  const handle = await serve({ port: 0, ...options, onConnectionRefused: () => refused++ });
  return { handle, refusals: () => refused };
}

/** Opens a connection and waits for the server to close it: refused at the cap. */
async function assertRefused(port: number, what = 'the new connection refused'): Promise<void> {
  const client = await rawClient(port);
  await withDeadline(client.closed, what);
}

/** Lets a new client in, served, and waits for `idle` to be closed to make room for it. */
async function assertMakesRoom(port: number, idle: RawClient, what: string): Promise<void> {
  const next = await idleClient(port);
  await withDeadline(idle.closed, what);
  next.socket.destroy();
}

describe('serve at maxConnections', () => {
  it('closes the connection idle the longest to let a new client in when every open one is idle', async () => {
    // Twenty sockets that each sent one cheap request and then idled kept every new client out
    // for the whole keep-alive timeout.
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      maxConnections: 3,
      keepAliveTimeout: 60_000,
    });
    try {
      const a = await idleClient(handle.port);
      const b = await idleClient(handle.port);
      const c = await idleClient(handle.port);
      // `a` is used again: now `b` has been idle the longest.
      a.socket.write(GET());
      await a.waitFor(/200 [\s\S]*200 /, 'a second response on the first connection');

      const d = await rawClient(handle.port);
      d.socket.write(GET());
      await d.waitFor(OK, 'the new client served');
      await withDeadline(b.closed, 'the connection idle the longest to be closed');
      assert.equal(await closedWithin(a, 50), false, 'a connection used since is kept');
      assert.equal(await closedWithin(c, 0), false);
      c.socket.write(GET());
      await c.waitFor(/200 [\s\S]*200 /, 'the kept connections still served');
      for (const client of [a, c, d]) client.socket.destroy();
    } finally {
      await handle.close();
    }
  });

  it("reclaims connections left idle by a plant store's creates, documents and refusals", async () => {
    const { store } = testStore();
    const handle = await serve({ fetch: store.fetch, port: 0, maxConnections: 3 });
    try {
      const created = await rawClient(handle.port);
      created.socket.write(rawPlantRequest('{"id":1,"name":"Fern"}', TOKEN, { close: false }));
      await created.waitFor(OK, 'the create');
      // Answered before node ends the request: it turns idle a step later.
      const documented = await rawClient(handle.port);
      documented.socket.write(GET('/openapi.json'));
      await documented.waitFor(OK, 'the document');
      // Answered before its body was read: the body is drained, then it is idle.
      const refused = await rawClient(handle.port);
      refused.socket.write(rawPlantRequest('{"id":2,"name":"Fern"}', 'wrong', { close: false }));
      await refused.waitFor(/^HTTP\/1\.1 401 /, 'the refusal');

      const next = await Promise.all([1, 2, 3].map(() => idleClient(handle.port, '/openapi.json')));
      for (const old of [created, documented, refused]) {
        await withDeadline(old.closed, 'an idle connection reclaimed');
      }
      for (const client of next) client.socket.destroy();
    } finally {
      await handle.close();
    }
  });

  it('refuses a new connection, telling onConnectionRefused, only while every open one is busy', async () => {
    const release = gate();
    const { handle, refusals } = await servedCounting({
      fetch: async (request) => {
        if (new URL(request.url).pathname === '/slow') await release.promise;
        return new Response(`read ${(await request.text()).length}`);
      },
      maxConnections: 5,
      keepAliveTimeout: 60_000,
    });
    try {
      // Idle, then busy again: half of its next request arrived.
      const resumed = await idleClient(handle.port);
      resumed.socket.write('GET / HTTP/1.1\r\nHo');
      const inFlight = await rawClient(handle.port);
      inFlight.socket.write(GET('/slow'));
      const halfHead = await rawClient(handle.port);
      halfHead.socket.write('GET / HTTP/1.1\r\nHo');
      const halfBody = await rawClient(handle.port);
      halfBody.socket.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12345');
      const silent = await rawClient(handle.port);
      await delay(50);

      const turnedAway = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const client = await rawClient(handle.port);
          client.socket.write(GET());
          return client;
        }),
      );
      for (const client of turnedAway) {
        await withDeadline(client.closed, 'a new connection refused');
        assert.equal(client.text(), '', 'refused unanswered');
      }
      assert.equal(refusals(), 20);

      // Each busy connection was kept: each gets its answer.
      release.open();
      await inFlight.waitFor(OK, 'the request in flight answered');
      halfHead.socket.write('st: a\r\n\r\n');
      await halfHead.waitFor(OK, 'the half-sent head answered');
      halfBody.socket.write('67890');
      await halfBody.waitFor(/read 10\r\n0\r\n\r\n$/, 'the half-sent body answered');
      silent.socket.write(GET());
      await silent.waitFor(OK, 'the silent connection answered');
      resumed.socket.write('st: a\r\n\r\n');
      await resumed.waitFor(/200 [\s\S]*200 /, 'the resumed connection answered');

      // All idle now: a new client is let in.
      const next = await idleClient(handle.port);
      assert.equal(refusals(), 20);
      next.socket.destroy();
      for (const client of [resumed, inFlight, halfHead, halfBody, silent]) client.socket.destroy();
    } finally {
      release.open();
      await handle.close();
    }
  });

  it('never closes a connection whose response is still being written', async () => {
    const size = 32 * 1024 * 1024;
    const { handle, refusals } = await servedCounting({
      fetch: () => new Response(new Uint8Array(size)),
      maxConnections: 1,
    });
    try {
      const reader = await rawClient(handle.port);
      reader.socket.pause();
      reader.socket.write(GET());
      await delay(200);
      await assertRefused(handle.port);
      assert.equal(refusals(), 1);
      let received = 0;
      reader.socket.on('data', (chunk: Buffer) => {
        received += chunk.byteLength;
      });
      reader.socket.resume();
      await withDeadline(
        (async () => {
          while (received < size) await delay(10);
        })(),
        'the whole response',
      );
      // Written whole, it is idle: it makes room for the next client.
      await assertMakesRoom(
        handle.port,
        reader,
        'the connection reclaimed once its response was written',
      );
      assert.equal(refusals(), 1);
    } finally {
      await handle.close();
    }
  });

  it('never closes a connection while pipelined requests on it wait for their answers', async () => {
    const release = gate();
    const { handle, refusals } = await servedCounting({
      fetch: async () => {
        await release.promise;
        return new Response('ok');
      },
      maxConnections: 1,
    });
    try {
      const client = await rawClient(handle.port);
      client.socket.write(GET() + GET() + GET());
      await delay(50);
      await assertRefused(handle.port);
      assert.equal(refusals(), 1);
      release.open();
      await client.waitFor(/(200 [\s\S]*){3}/, 'the three pipelined answers');
      assert.equal(splitResponses(client.text()).length, 3);
      // Every answer out: the connection is idle and makes room.
      await assertMakesRoom(handle.port, client, 'the idle connection reclaimed');
    } finally {
      release.open();
      await handle.close();
    }
  });

  it('drains an unread body before the connection counts as idle', async () => {
    const { handle, refusals } = await servedCounting({
      fetch: () => new Response('not read'),
      maxConnections: 1,
      drainTimeout: 10_000,
    });
    try {
      const client = await rawClient(handle.port);
      client.socket.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12345');
      await client.waitFor(/not read\r\n0\r\n\r\n$/, 'the answer before the body');
      await assertRefused(handle.port, 'a new connection refused while the body drains');
      assert.equal(refusals(), 1);
      client.socket.write('67890');
      await delay(50);
      await assertMakesRoom(handle.port, client, 'the drained connection reclaimed');
      assert.equal(refusals(), 1);
    } finally {
      await handle.close();
    }
  });

  it('never lets a request that reached the handler go unanswered when its connection is reclaimed', async () => {
    // A request on an idle connection and a new connection arrive together: either the request
    // was read first (then the connection is busy and the newcomer is refused), or the
    // connection was closed before it (then the request was never executed).
    const seen = new Set<string>();
    const handle = await serve({
      fetch: (request) => {
        seen.add(new URL(request.url).pathname);
        return new Response('ok');
      },
      port: 0,
      maxConnections: 1,
    });
    try {
      for (let round = 0; round < 30; round++) {
        const kept = await idleClient(handle.port);
        seen.clear();
        const sent = kept.text().length;
        kept.socket.write(GET(`/kept-${round}`));
        const newcomer = await rawClient(handle.port);
        newcomer.socket.write(GET(`/new-${round}`));
        await withDeadline(
          Promise.race([kept.closed, kept.waitFor(/200 [\s\S]*200 /, 'an answer')]),
          'the kept connection answered or closed',
        );
        await withDeadline(
          Promise.race([newcomer.closed, newcomer.waitFor(OK, 'an answer')]),
          'the newcomer answered or refused',
        );
        const keptAnswered = OK.test(kept.text().slice(sent));
        assert.equal(keptAnswered, seen.has(`/kept-${round}`), `round ${round}: the kept request`);
        kept.socket.destroy();
        newcomer.socket.destroy();
        await delay(5);
      }
    } finally {
      await handle.close();
    }
  });

  it('keeps every answer whole through a flood of new connections at the cap', async () => {
    const executed = new Set<string>();
    const { handle, refusals } = await servedCounting({
      fetch: async (request) => {
        executed.add(new URL(request.url).pathname);
        await delay(2);
        return new Response('ok');
      },
      maxConnections: 10,
      keepAliveTimeout: 60_000,
    });
    try {
      const clients = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const client = await rawClient(handle.port);
          client.socket.write(GET(`/${i}`));
          await withDeadline(
            Promise.race([client.closed, client.waitFor(/ok\r\n0\r\n\r\n$/, 'an answer')]),
            'each client answered or refused',
          );
          return client;
        }),
      );
      let unanswered = 0;
      for (const [i, client] of clients.entries()) {
        const text = client.text();
        if (text === '') {
          unanswered++;
          assert.equal(executed.has(`/${i}`), false, 'a request closed unanswered never ran');
        } else {
          assert.match(text, /^HTTP\/1\.1 200 [^]*\r\n2\r\nok\r\n0\r\n\r\n$/, 'an answer is whole');
        }
      }
      assert.equal(refusals(), unanswered);
      assert.ok(unanswered < 200, 'clients were served');
      for (const client of clients) client.socket.destroy();
      const after = await idleClient(handle.port);
      after.socket.destroy();
    } finally {
      await handle.close();
    }
  });

  it('reports an onConnectionRefused that throws to onError and keeps serving', async () => {
    const errors: unknown[] = [];
    const release = gate();
    const handle = await serve({
      fetch: async () => {
        await release.promise;
        return new Response('ok');
      },
      port: 0,
      maxConnections: 1,
      onConnectionRefused: () => {
        throw new Error('hook failed');
      },
      onError: (error) => errors.push(error),
    });
    try {
      const busy = await rawClient(handle.port);
      busy.socket.write(GET());
      await delay(20);
      for (let i = 0; i < 3; i++) await assertRefused(handle.port, 'a new connection refused');
      assert.deepEqual(
        errors.map((error) => (error as Error).message),
        ['hook failed', 'hook failed', 'hook failed'],
      );
      release.open();
      await busy.waitFor(OK, 'the busy connection answered');
      busy.socket.destroy();
    } finally {
      release.open();
      await handle.close();
    }
    assert.throws(() => serve({ fetch: () => new Response(), onConnectionRefused: 1 as never }), {
      name: 'TypeError',
      message: 'onConnectionRefused must be a function',
    });
  });
});
