/**
 * The README's Hono recipes in real Hono, with the host's middleware in front: a store with
 * `basePath` mounted at that path answers as its own `fetch` does, and its document's server
 * (`.`) resolves to the mount, as it does under the default `app.mount`, which strips the prefix.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { logger } from 'hono/logger';
import { validator } from 'hono/validator';
import { answerOf, MOUNT_CASES, mountStore, TOKEN } from '../support/mount-helpers.ts';
import { operationUrl } from '../support/openapi.ts';

/** A host's app: a request logger and a route of its own that validates JSON. */
function host(): Hono {
  const app = new Hono();
  app.use(logger(() => {}));
  app.post(
    '/echo',
    validator('json', (value) => value),
    (c) => c.json({ parsed: c.req.valid('json') }),
  );
  return app;
}

async function assertAnswersAsFetch(app: Hono, reference: (r: Request) => Promise<Response>) {
  for (const { name, method, path, headers = {}, body } of MOUNT_CASES) {
    const init = { method, headers, body: body ?? null };
    const url = `http://127.0.0.1:8787/api${path}`;
    const direct = await reference(new Request(url, init));
    assert.deepEqual(
      await answerOf(await app.fetch(new Request(url, init))),
      await answerOf(direct),
      name,
    );
  }
}

async function serverOf(app: Hono, url: string): Promise<string> {
  const document = (await (await app.fetch(new Request(url))).json()) as {
    servers: { url: string }[];
  };
  return (document.servers[0] as { url: string }).url;
}

describe('a plant store in Hono', () => {
  it('answers as store.fetch does when mounted with app.mount and replaceRequest: false', async () => {
    const app = host();
    const { store } = mountStore({ basePath: '/api' });
    app.mount('/api', store.fetch, { replaceRequest: false });
    await assertAnswersAsFetch(app, mountStore({ basePath: '/api' }).store.fetch);
    assert.equal(await serverOf(app, 'http://x/api/openapi.json'), '.');
    const echo = await app.fetch(
      new Request('http://x/echo', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      }),
    );
    assert.deepEqual(await echo.json(), { parsed: { a: 1 } });
  });

  it('answers as store.fetch does when routed with app.route', async () => {
    const app = host();
    const { store } = mountStore({ basePath: '/api' });
    const api = new Hono();
    api.all('*', (c) => store.fetch(c.req.raw));
    app.route('/api', api);
    await assertAnswersAsFetch(app, mountStore({ basePath: '/api' }).store.fetch);
  });

  it('points clients at the mount when app.mount strips the prefix (the default)', async () => {
    const app = host();
    app.mount('/api', mountStore().store.fetch);
    const documentUrl = 'http://x/api/openapi.json';
    const plants = operationUrl(await serverOf(app, documentUrl), documentUrl);
    assert.equal(plants, 'http://x/api/plants');
    const created = await app.fetch(
      new Request(plants, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{"id": 1, "name": "Monstera"}',
      }),
    );
    assert.equal(created.status, 200);
  });
});
