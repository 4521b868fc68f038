/**
 * The routes of `fetch`: `POST /plants`, the OpenAPI document, and `404`/`405` for the rest,
 * answered without a token.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { TOKEN } from '../support/web-fakes.ts';
import { defineCases, type Handler, json } from './context.ts';

/** An HTTP-date in its one form an origin server sends (RFC 9110 section 5.6.7). */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** Whether this runtime is workerd, whose server adds no `Date` to an answer. */
const ON_WORKERS =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
  'Cloudflare-Workers';

/** The cases of `fetch`'s routes. */
export const routeCases = defineCases('fetch', (it) => {
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

  it('serves the OpenAPI document at GET /openapi.json without a token, its server "."', async (t) => {
    const { store } = t.testStore();
    const response = await t.deliver(store.fetch, new Request('http://localhost/openapi.json'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    const served = await response.json();
    assert.deepEqual(served, JSON.parse(JSON.stringify(t.lib.openApiDocument)));
    assert.deepEqual(served.servers, [{ url: '.' }]);
    assert.deepEqual(served.info.license, { name: 'MIT', identifier: 'MIT' });
  });

  it(
    'names the same server "." whatever origin or forwarding headers a request carries',
    async (t) => {
      const { store } = t.testStore();
      for (const origin of ['http://plants.example:8080', 'https://[::1]', 'http://localhost']) {
        const response = await t.deliver(
          store.fetch,
          new Request(`${origin}/openapi.json?x`, {
            headers: { 'x-forwarded-host': 'evil.example', forwarded: 'host=evil.example' },
          }),
        );
        const { servers } = await response.json();
        assert.deepEqual(servers, [{ url: '.' }]);
      }
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
    assert.deepEqual(servers, [{ url: '.' }]);
    const root = await t.deliver(store.fetch, new Request('http://localhost/openapi.json'));
    assert.equal(root.status, 404);
  });

  it('names publicUrl as the document’s server, whatever a proxy says, when it is set', async (t) => {
    const fixed = t.testStore({ publicUrl: 'https://api.example.com/v1' }).store;
    const response = await t.deliver(
      fixed.fetch,
      new Request('http://localhost/v1/openapi.json', {
        headers: { forwarded: 'for=192.0.2.1;proto=https;host=plants.example' },
      }),
    );
    assert.equal((await response.json()).servers[0].url, 'https://api.example.com/v1');
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

  it('dates every answer once, the store where its host does not (workerd)', async (t) => {
    const APP = 'http://app.test:5173';
    const { store } = t.testStore({ cors: t.lib.createCors({ origins: [APP] }) });
    const create = (body: string, authorization = `Bearer ${TOKEN}`) =>
      new Request('http://localhost/plants', {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
    const answers: Array<[string, Handler, Request, number]> = [
      ['a create', store.fetch, create(json({ id: 1, name: 'a' })), 200],
      [
        'a replay, by handleCreatePlant',
        store.handleCreatePlant,
        create(json({ id: 1, name: 'a' })),
        200,
      ],
      ['a conflict', store.fetch, create(json({ id: 1, name: 'b' })), 409],
      ['no token', store.fetch, create('{}', ''), 401],
      ['GET /plants', store.fetch, new Request('http://localhost/plants'), 405],
      ['an unknown path', store.fetch, new Request('http://localhost/nothing'), 404],
      ['the document', store.fetch, new Request('http://localhost/openapi.json'), 200],
      [
        'HEAD of the document',
        store.fetch,
        new Request('http://localhost/openapi.json', { method: 'HEAD' }),
        200,
      ],
      [
        'POST /openapi.json',
        store.fetch,
        new Request('http://localhost/openapi.json', { method: 'POST', body: '{}' }),
        405,
      ],
      [
        'a preflight',
        store.fetch,
        new Request('http://localhost/plants', {
          method: 'OPTIONS',
          headers: { origin: APP, 'access-control-request-method': 'POST' },
        }),
        204,
      ],
    ];
    // Node, Deno and Bun date what they send, so there the store adds nothing; workerd does not.
    const dated = t.overHttp || ON_WORKERS;
    // Bun.serve sends no Date with a bodiless answer, a HEAD's included
    // (https://github.com/oven-sh/bun/issues/27512).
    const headUndated = t.overHttp && 'Bun' in globalThis;
    for (const [what, handler, request, status] of answers) {
      const response = await t.deliver(handler, request);
      await response.arrayBuffer();
      assert.equal(response.status, status, what);
      const date = response.headers.get('date');
      if (!dated) {
        assert.equal(date, null, `${what}: the store leaves the Date to its host`);
        continue;
      }
      if (headUndated && request.method === 'HEAD') continue;
      assert.match(date ?? 'no Date', IMF_FIXDATE, what);
      const skewMs = Math.abs(Date.parse(date as string) - Date.now());
      assert.ok(skewMs < 60_000, `${what}: dated ${date}, ${skewMs} ms from now`);
    }
  });
});
