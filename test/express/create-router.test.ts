/**
 * `plant-store/express` in a real Express 5 app, with the host's usual middleware around it:
 * before the body parsers it answers as `store.fetch` does; behind `express.json()` a create is
 * a `500` reported to `onError`, never a `200`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import express, { type Express } from 'express';
import { PlantApiError } from '../../lib/index.ts';
import { createRouter } from '../../lib/express.ts';
import { assertAnswersAsFetch, mountStore, TOKEN } from '../support/mount-helpers.ts';
import { parseRawResponse, rawExchange, withDeadline } from '../support/node-helpers.ts';
import { UNDECODABLE_MOUNT_CASES } from './undecodable-mount.ts';

async function listen(t: TestContext, app: Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A host's own middleware: a request counter and a route that parses JSON. */
function host(): { app: Express; seen: string[] } {
  const app = express();
  // The app's own header on every response, not the store's; Express's security guide turns it off.
  app.disable('x-powered-by');
  const seen: string[] = [];
  app.use((req, _res, next) => {
    seen.push(req.originalUrl);
    next();
  });
  return { app, seen };
}

/** The document's servers, as served at `url`. */
async function serversAt(url: string): Promise<string[]> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  const document = (await response.json()) as { servers: { url: string }[] };
  return document.servers.map((server) => server.url);
}

/** One raw HTTP/1.1 GET with the target as given (no client normalises it), parsed. */
async function rawGet(url: string, target: string) {
  const port = Number(new URL(url).port);
  const text = await rawExchange(
    port,
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
  );
  return parseRawResponse(text);
}

const create = {
  method: 'POST',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  body: '{"id": 9007199254740993, "name": "Monstera"}',
};

describe('createRouter', () => {
  it('answers every route as store.fetch does when mounted before the body parsers', async (t) => {
    const { app, seen } = host();
    app.use('/api', createRouter(mountStore().store));
    app.use(express.json(), express.urlencoded(), express.text());
    app.post('/echo', (req, res) => {
      res.json({ parsed: req.body });
    });
    const url = await listen(t, app);
    await assertAnswersAsFetch(`${url}/api`, mountStore({ basePath: '/api' }).store.fetch);
    assert.ok(seen.includes('/api/plants'));
    const echo = await fetch(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a": 1}',
    });
    assert.deepEqual(await echo.json(), { parsed: { a: 1 } });
  });

  it('answers as store.fetch does when mounted at the root or in a sub-app', async (t) => {
    const { app } = host();
    const v1 = express();
    v1.disable('x-powered-by');
    v1.use('/api', createRouter(mountStore().store));
    app.use('/v1', v1);
    app.use(createRouter(mountStore().store));
    const url = await listen(t, app);
    await assertAnswersAsFetch(`${url}/v1/api`, mountStore({ basePath: '/v1/api' }).store.fetch);
    await assertAnswersAsFetch(url, mountStore().store.fetch);
  });

  it('lets other paths go on to the app when they are not the store’s', async (t) => {
    const { app } = host();
    app.use('/api', createRouter(mountStore().store));
    app.get('/api/health', (_req, res) => {
      res.send('ok');
    });
    const url = await listen(t, app);
    assert.equal(await (await fetch(`${url}/api/health`)).text(), 'ok');
    assert.equal((await fetch(`${url}/api/docs`)).status, 404);
  });

  it('answers 500 and reports the fix to onError when express.json() read the body first', async (t) => {
    const { app } = host();
    const { store, errors } = mountStore();
    app.use(express.json());
    app.use('/api', createRouter(store));
    const url = await listen(t, app);
    const response = await withDeadline(fetch(`${url}/api/plants`, create), 'a create');
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), {
      error: 500,
      message:
        'internal error: the request body was read before plant-store; mount plant-store before any body parser',
    });
    assert.equal(errors.length, 1);
    const error = errors[0] as PlantApiError;
    assert.ok(error instanceof PlantApiError);
    assert.equal(error.code, 'ERR_BODY_ALREADY_READ');
    assert.match(error.message, /mount plant-store before any body parser/);
    const again = await fetch(`${url}/api/plants`, create);
    assert.equal(again.status, 500);
    // Nothing was stored from a re-parsed body: the id is still free for another plant.
    const direct = await store.fetch(
      new Request('http://x/plants', {
        ...create,
        body: '{"id": 9007199254740993, "name": "Fern"}',
      }),
    );
    assert.equal(direct.status, 200);
  });

  it('serves the reference page under the mount path when docs is true', async (t) => {
    const { app } = host();
    app.use('/api', createRouter(mountStore().store, { docs: true }));
    const url = await listen(t, app);
    const page = await fetch(`${url}/api/docs`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /data-document-url="\.\/openapi\.json"/);
    assert.equal((await fetch(`${url}/api/docs/init.js`)).status, 200);
  });

  it('throws a TypeError when the store is missing or an option unknown', () => {
    assert.throws(() => createRouter(undefined as never), {
      name: 'TypeError',
      message: /needs a store from createPlantStore/,
    });
    assert.throws(() => createRouter(mountStore().store, { doc: true } as never), {
      name: 'TypeError',
      message: /^createRouter: unknown option "doc" \(known: .*\bdocs\b/,
    });
  });

  it("serves a store's basePath below the mount path, as a store with both in its basePath does", async (t) => {
    const { app } = host();
    app.use('/api', createRouter(mountStore({ basePath: '/v1' }).store));
    const url = await listen(t, app);
    await assertAnswersAsFetch(`${url}/api/v1`, mountStore({ basePath: '/api/v1' }).store.fetch);
  });

  it("serves a store's publicUrl path below the mount path, its document naming the public URL", async (t) => {
    const { app } = host();
    const publicUrl = 'https://api.example.com/v1';
    app.use('/api', createRouter(mountStore({ publicUrl }).store));
    const url = await listen(t, app);
    await assertAnswersAsFetch(
      `${url}/api/v1`,
      mountStore({ basePath: '/api/v1', publicUrl }).store.fetch,
    );
    assert.deepEqual(await serversAt(`${url}/api/v1/openapi.json`), [publicUrl]);
  });

  it('serves a mount path with parameters per request, and answers a path it cannot serve with the Error body', async (t) => {
    const { app } = host();
    app.use('/:tenant', createRouter(mountStore({ basePath: '/v1' }).store, { docs: true }));
    const url = await listen(t, app);
    for (const tenant of ['acme', 'a%22b', 'a%2Fb', '%C3%A9t%C3%A9']) {
      await assertAnswersAsFetch(
        `${url}/${tenant}/v1`,
        mountStore({ basePath: `/${tenant}/v1` }).store.fetch,
      );
      assert.deepEqual(await serversAt(`${url}/${tenant}/v1/openapi.json`), ['.']);
      assert.equal((await fetch(`${url}/${tenant}/v1/docs`)).status, 200);
    }
    // A quote no client escaped: the document is served, and names no path.
    const quoted = await rawGet(url, '/a"b/v1/openapi.json');
    assert.equal(quoted.status, 200);
    assert.equal(quoted.headers.get('content-type'), 'application/json');
    assert.deepEqual(
      (JSON.parse(quoted.body) as { servers: { url: string }[] }).servers.map(({ url }) => url),
      ['.'],
    );
    // A dot segment is no mount path a document can name: the Error body, never Express's page.
    const dots = await rawGet(url, '/%2e%2e/v1/openapi.json');
    assert.equal(dots.status, 404);
    assert.equal(dots.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(dots.body), { error: 404, message: 'not found' });
    const piped = await rawGet(url, '/a|b/v1/openapi.json');
    assert.equal(piped.status, 404);
    assert.equal(piped.headers.get('content-type'), 'application/json');
  });

  it('answers under a mount path with a trailing slash as under the path without it', async (t) => {
    const { app } = host();
    app.use('/api/', createRouter(mountStore().store));
    const url = await listen(t, app);
    await assertAnswersAsFetch(`${url}/api`, mountStore({ basePath: '/api' }).store.fetch);
  });
});

describe('createErrorHandler', () => {
  for (const { name, run } of UNDECODABLE_MOUNT_CASES) it(name, run);
});
