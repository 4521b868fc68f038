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

  it('serves the OpenAPI document at GET /openapi.json without a token', async (t) => {
    const { store } = t.testStore();
    const response = await t.deliver(store.fetch, new Request('http://localhost/openapi.json'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    const { servers, ...served } = await response.json();
    const { servers: _relative, ...document } = JSON.parse(JSON.stringify(t.lib.openApiDocument));
    assert.deepEqual(served, document);
    // Over HTTP the origin is the test server's own, so only its form is checked here.
    assert.equal(servers.length, 1);
    assert.equal(new URL(servers[0].url).origin, servers[0].url);
  });

  it(
    "names the origin it was fetched from as the served document's one server",
    async (t) => {
      const { store } = t.testStore();
      for (const origin of ['http://plants.example:8080', 'https://[::1]', 'http://localhost']) {
        const response = await t.deliver(store.fetch, new Request(`${origin}/openapi.json?x`));
        const { servers, info } = await response.json();
        assert.deepEqual(servers, [
          { url: origin, description: 'The server this document came from.' },
        ]);
        assert.deepEqual(info.license, { name: 'MIT', identifier: 'MIT' });
      }
      assert.deepEqual(t.lib.openApiDocument.servers, [
        { url: '/', description: 'The server this document is served from.' },
      ]);
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
