/**
 * The routes of `fetch`: `POST /plants`, the OpenAPI document, and `404`/`405` for the rest,
 * answered without a token.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { TOKEN } from '../support/web-fakes.ts';
import { defineCases, json } from './context.ts';

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
});
