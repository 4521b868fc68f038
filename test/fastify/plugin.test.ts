/**
 * `plant-store/fastify` in a real Fastify app, with the host's JSON parser, a form parser and
 * a hook of its own in front: the plugin answers as `store.fetch` does.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createCors } from '../../lib/cors.ts';
import plantStore from '../../lib/fastify.ts';
import { assertAnswersAsFetch, mountStore, TOKEN } from '../support/mount-helpers.ts';

/** A host as users write one: its own JSON and form parsers, a hook, a route of its own. */
function host(): FastifyInstance {
  const app = Fastify();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addHook('onRequest', async (request) => {
    request.headers['x-seen-by-host'] = 'yes';
  });
  app.post('/echo', async (request) => ({ parsed: request.body }));
  return app;
}

async function listen(t: TestContext, app: FastifyInstance): Promise<string> {
  t.after(() => app.close());
  return app.listen({ port: 0, host: '127.0.0.1' });
}

describe('plant-store/fastify', () => {
  it('answers every route as store.fetch does when registered under a prefix', async (t) => {
    const app = host();
    const { store } = mountStore();
    app.register(plantStore, { store, prefix: '/api' });
    const url = await listen(t, app);
    const reference = mountStore({ basePath: '/api' }).store;
    await assertAnswersAsFetch(`${url}/api`, reference.fetch);
  });

  it('answers every route as store.fetch does when registered without a prefix', async (t) => {
    const app = host();
    const { store } = mountStore();
    app.register(plantStore, { store });
    const url = await listen(t, app);
    await assertAnswersAsFetch(url, mountStore().store.fetch);
  });

  it("answers a CORS preflight and a browser's create as store.fetch does when cors is on", async (t) => {
    const cors = () => createCors({ origins: ['https://app.example.com'] });
    const app = host();
    app.register(plantStore, { store: mountStore({ cors: cors() }).store, prefix: '/api' });
    const url = await listen(t, app);
    const origin = { origin: 'https://app.example.com' };
    await assertAnswersAsFetch(
      `${url}/api`,
      mountStore({ basePath: '/api', cors: cors() }).store.fetch,
      [
        {
          name: 'a preflight',
          method: 'OPTIONS',
          path: '/plants',
          headers: { ...origin, 'access-control-request-method': 'POST' },
        },
        {
          name: 'a create from the allowed origin',
          method: 'POST',
          path: '/plants',
          headers: {
            ...origin,
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
          },
          body: '{"id": 1, "name": "Monstera"}',
        },
        { name: 'the document', method: 'GET', path: '/openapi.json', headers: origin },
      ],
    );
  });

  it('names the prefix in the document it serves', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api/v1' });
    const url = await listen(t, app);
    const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    assert.deepEqual(
      document.servers.map((server) => server.url),
      ['/api/v1'],
    );
  });

  it('leaves the host its own parsers and routes outside the plugin', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const url = await listen(t, app);
    const echo = await fetch(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a": 1}',
    });
    assert.deepEqual(await echo.json(), { parsed: { a: 1 } });
    const other = await fetch(`${url}/api/elsewhere`);
    assert.equal(other.status, 404);
  });

  it('serves the reference page under the prefix when docs is true', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api', docs: true });
    const url = await listen(t, app);
    const page = await fetch(`${url}/api/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.match(html, /data-document-url="\.\/openapi\.json"/);
    assert.match(html, /src="\.\/docs\/init\.js"/);
    const init = await fetch(`${url}/api/docs/init.js`);
    assert.equal(init.status, 200);
    const created = await fetch(`${url}/api/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Monstera"}',
    });
    assert.equal(created.status, 200);
  });

  it('serves no reference page when docs is not set', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const url = await listen(t, app);
    assert.equal((await fetch(`${url}/api/docs`)).status, 404);
  });

  it('hands a wrapped store the request below its prefix when the store is not createPlantStore’s', async (t) => {
    const app = host();
    const { store } = mountStore();
    const seen: string[] = [];
    const wrapped = {
      handleCreatePlant: store.handleCreatePlant,
      fetch: (request: Request) => {
        seen.push(new URL(request.url).pathname);
        return store.fetch(request);
      },
    };
    app.register(plantStore, { store: wrapped, prefix: '/api' });
    const url = await listen(t, app);
    const created = await fetch(`${url}/api/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": 9007199254740993, "name": "Monstera"}',
    });
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { name: 'Monstera' });
    assert.deepEqual(seen, ['/plants']);
  });

  it('fails registration with a TypeError when an option is unknown or the store missing', async () => {
    const misspelt = Fastify();
    misspelt.register(plantStore, { store: mountStore().store, doc: true } as never);
    await assert.rejects(async () => misspelt.ready(), {
      name: 'TypeError',
      message: /^plant-store\/fastify: unknown option "doc"; did you mean "docs"\?/,
    });
    const missing = Fastify();
    missing.register(plantStore, {} as never);
    await assert.rejects(async () => missing.ready(), {
      name: 'TypeError',
      message: /createPlantStore/,
    });
  });
});
