/**
 * `plant-store/fastify` on `Fastify({ http2: true })`, over real h2c and h2 connections: the
 * plugin's routes answer as `store.fetch` does, as they do over HTTP/1.1.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type ClientHttp2Session, connect } from 'node:http2';
import { describe, it, type TestContext } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import plantStore from '../../lib/fastify.ts';
import { fetchOver, http11Fetch, http2Request } from '../support/http2-helpers.ts';
import { assertAnswersAsFetch, mountStore, TOKEN } from '../support/mount-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';
import { noOpenssl, selfSigned } from '../support/tls.ts';

const noTls = noOpenssl();
const tls = noTls === false ? selfSigned() : undefined;
const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Listens on a free port; a client session to it, both closed after the test. */
async function listen(
  t: TestContext,
  app: Pick<FastifyInstance, 'listen' | 'close'>,
): Promise<{ url: string; session: ClientHttp2Session }> {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const session = connect(url, tls === undefined ? {} : { ca: tls.cert });
  session.on('error', () => {});
  t.after(async () => {
    session.destroy();
    await app.close();
  });
  await withDeadline(
    new Promise((resolve, reject) => {
      session.once('connect', resolve);
      session.once('error', reject);
    }),
    `an HTTP/2 session to ${url}`,
  );
  return { url, session };
}

describe('plant-store/fastify over HTTP/2', () => {
  it('answers every route as store.fetch does on Fastify({ http2: true }) over h2c', async (t) => {
    const app = Fastify({ http2: true });
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const { url, session } = await listen(t, app);
    const reference = mountStore({ basePath: '/api' }).store.fetch;
    await assertAnswersAsFetch(`${url}/api`, reference, undefined, fetchOver(session));
  });

  it(
    'answers h2 and HTTP/1.1 clients as store.fetch does on Fastify with https and allowHTTP1',
    { skip: noTls },
    async (t) => {
      const app = Fastify({
        http2: true,
        https: { ...(tls as { key: Buffer; cert: Buffer }), allowHTTP1: true },
      });
      app.register(plantStore, { store: mountStore().store, prefix: '/api' });
      const { url, session } = await listen(t, app);
      await assertAnswersAsFetch(
        `${url}/api`,
        mountStore({ basePath: '/api' }).store.fetch,
        undefined,
        fetchOver(session),
      );
      await assertAnswersAsFetch(
        `${url}/api`,
        mountStore({ basePath: '/api' }).store.fetch,
        undefined,
        (target, init) => http11Fetch(target, init, tls?.cert),
      );
    },
  );

  it('creates a plant from a body without Content-Length, and answers 400 to a POST the HEADERS frame ends', async (t) => {
    const app = Fastify({ http2: true });
    app.register(plantStore, { store: mountStore().store });
    const { session } = await listen(t, app);
    const created = await http2Request(
      session,
      'POST',
      '/plants',
      json,
      '{"id": 1, "name": "Fern"}',
    );
    assert.equal(created.status, 200);
    assert.equal(created.body, '{"name":"Fern"}');
    const empty = await http2Request(session, 'POST', '/plants', json);
    assert.equal(empty.status, 400);
    assert.deepEqual(JSON.parse(empty.body), { error: 400, message: 'request body is required' });
  });

  it("runs the host's onSend hook and honours its bodyLimit over h2c, the connection serving on", async (t) => {
    const app = Fastify({ http2: true, bodyLimit: 64 });
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-host-on-send', 'yes');
      return payload;
    });
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const { session } = await listen(t, app);
    const big = `{"id": 1, "name": "${'x'.repeat(200)}"}`;
    const refused = await http2Request(session, 'POST', '/api/plants', json, big);
    assert.equal(refused.status, 413);
    assert.equal(refused.headers['x-host-on-send'], 'yes');
    assert.deepEqual(JSON.parse(refused.body), {
      error: 413,
      message: 'request body is larger than 64 bytes',
    });
    // Only the refused stream ended: the same connection creates a plant next.
    const created = await http2Request(
      session,
      'POST',
      '/api/plants',
      json,
      '{"id": 9007199254740993, "name": "Fern"}',
    );
    assert.equal(created.status, 200);
    assert.equal(created.headers['x-host-on-send'], 'yes');
    assert.equal(created.body, '{"name":"Fern"}');
  });
});
