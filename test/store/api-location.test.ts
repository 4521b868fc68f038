/**
 * Where the API lives: `basePath` and `publicUrl` of `createPlantStore`, through `store.fetch`,
 * and the document's server: `.`, the directory it is served from, unless `publicUrl` names one.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createPlantStore,
  type CreatePlantStoreOptions,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import { operationUrl } from '../support/openapi.ts';

const verifier = createStaticTokenVerifier(['s3cr3t']);

function storeWith(options: Partial<CreatePlantStoreOptions>) {
  return createPlantStore({ verifier, onError: () => {}, ...options });
}

function create(url: string) {
  return new Request(url, {
    method: 'POST',
    headers: { authorization: 'Bearer s3cr3t', 'content-type': 'application/json' },
    body: '{"id": 1, "name": "Monstera"}',
  });
}

async function serverOf(
  store: ReturnType<typeof createPlantStore>,
  url: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await store.fetch(new Request(url, { headers }));
  assert.equal(response.status, 200);
  const document = (await response.json()) as { servers: { url: string }[] };
  assert.equal(document.servers.length, 1);
  return (document.servers[0] as { url: string }).url;
}

describe('createPlantStore({ basePath })', () => {
  it('serves the plants and the document under the base path when basePath is set', async () => {
    const store = storeWith({ basePath: '/api' });
    const created = await store.fetch(create('http://x/api/plants'));
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { name: 'Monstera' });
    assert.equal(await serverOf(store, 'http://x/api/openapi.json'), '.');
  });

  it('answers 404 at the unprefixed paths when basePath is set, naming it at a route', async () => {
    const store = storeWith({ basePath: '/api/v1' });
    const under = "not found: this store's routes are under /api/v1";
    for (const [url, message] of [
      ['http://x/plants', under],
      ['http://x/openapi.json', under],
      ['http://x/api/plants', 'not found'],
    ] as const) {
      const response = await store.fetch(new Request(url, { method: 'POST' }));
      assert.equal(response.status, 404, url);
      assert.deepEqual(await response.json(), { error: 404, message }, url);
    }
  });

  it('answers 405 with Allow under the base path when the method is wrong', async () => {
    const store = storeWith({ basePath: '/api' });
    const plants = await store.fetch(new Request('http://x/api/plants'));
    assert.equal(plants.status, 405);
    assert.equal(plants.headers.get('allow'), 'POST');
    const document = await store.fetch(new Request('http://x/api/openapi.json', { method: 'PUT' }));
    assert.equal(document.status, 405);
    assert.equal(document.headers.get('allow'), 'GET, HEAD');
  });

  it('keeps the root when basePath is /', async () => {
    const store = storeWith({ basePath: '/' });
    assert.equal((await store.fetch(create('http://x/plants'))).status, 200);
    assert.equal(await serverOf(store, 'http://x/openapi.json'), '.');
  });

  it('throws a TypeError naming the value when basePath is malformed', () => {
    // '' too: the root is spelled /, and an empty string is more likely a setting left blank.
    for (const basePath of ['api', '/api/', '/api?x=1', '/a//b', '', '/a b', 7, null]) {
      assert.throws(
        () => storeWith({ basePath: basePath as string }),
        (error: Error) => {
          assert.equal(error.name, 'TypeError');
          assert.match(error.message, /^basePath must be a URL path such as \/api/);
          assert.ok(error.message.endsWith(`got ${JSON.stringify(basePath)}`), error.message);
          return true;
        },
      );
    }
  });
});

describe('createPlantStore({ basePath }) with dot segments', () => {
  it('throws a TypeError when basePath holds a . or .. segment in any spelling', () => {
    // No request URL can reach such a path once parsed: the store would answer nothing.
    for (const basePath of ['/..', '/api/.', '/a/../b', '/%2e%2e', '/%2E', '/a/.%2e/b', '/.']) {
      assert.throws(() => storeWith({ basePath }), {
        name: 'TypeError',
        message: /or \. or \.\. segment\)/,
      });
    }
    for (const basePath of ['/.well-known', '/v1.2', '/a..b', '/...']) {
      assert.doesNotThrow(() => storeWith({ basePath }), basePath);
    }
  });
});

describe('createPlantStore({ publicUrl })', () => {
  it('names the public URL as the server whoever fetched the document', async () => {
    const store = storeWith({ publicUrl: 'https://api.example.com/v1/' });
    assert.equal(
      await serverOf(store, 'http://10.0.0.7:3000/v1/openapi.json', {
        'x-forwarded-host': 'evil.example',
      }),
      'https://api.example.com/v1',
    );
  });

  it('takes the public URL path as the base path when basePath is not set', async () => {
    const store = storeWith({ publicUrl: 'https://api.example.com/v1' });
    assert.equal((await store.fetch(create('http://x/v1/plants'))).status, 200);
    assert.equal((await store.fetch(create('http://x/plants'))).status, 404);
    for (const publicUrl of ['https://api.example.com', 'https://api.example.com/']) {
      const atRoot = storeWith({ publicUrl });
      assert.equal((await atRoot.fetch(create('http://x/plants'))).status, 200, publicUrl);
      assert.equal(await serverOf(atRoot, 'http://x/openapi.json'), 'https://api.example.com');
    }
  });

  it('serves at basePath while naming the public URL when both are set', async () => {
    const store = storeWith({ publicUrl: 'https://api.example.com/v1', basePath: '/' });
    assert.equal((await store.fetch(create('http://x/plants'))).status, 200);
    assert.equal(await serverOf(store, 'http://x/openapi.json'), 'https://api.example.com/v1');
  });

  it('throws a TypeError when publicUrl is not an absolute http(s) URL', () => {
    for (const publicUrl of [
      '/v1',
      'ftp://example.com',
      'https://example.com/?x=1',
      'https://u:p@example.com',
      'https://example.com/#top',
      'javascript:alert(1)',
    ]) {
      assert.throws(() => storeWith({ publicUrl }), {
        name: 'TypeError',
        message: /^publicUrl must/,
      });
    }
  });
});

describe('the served OpenAPI document', () => {
  it('names the server ".", the same for every request, whatever headers it carries', async () => {
    // A shared cache keyed on the URL hands one copy to everyone: no request may shape it.
    const store = storeWith({ basePath: '/api' });
    const hostile: Record<string, string>[] = [
      {},
      { host: 'evil.example' },
      { forwarded: 'proto=https;host=evil.example' },
      { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    ];
    for (const headers of hostile) {
      for (const url of [
        'http://127.0.0.1:3000/api/openapi.json',
        'https://evil.example/api/openapi.json',
      ]) {
        assert.equal(await serverOf(store, url, headers), '.', JSON.stringify({ url, headers }));
      }
    }
    assert.equal(await serverOf(storeWith({}), 'http://evil.example/openapi.json'), '.');
  });

  it('resolves to the API wherever a reader fetched it, prefix and all', async () => {
    const server = await serverOf(storeWith({ basePath: '/api' }), 'http://x/api/openapi.json');
    const plants = operationUrl(server, 'https://api.example.com/api/openapi.json');
    assert.equal(plants, 'https://api.example.com/api/plants');
  });

  it('resolves to the API, not the proxy root, when a proxy strips the prefix', async () => {
    // nginx's `location /store/ { proxy_pass http://store/; }`: the store sees /openapi.json,
    // a browser fetched /store/openapi.json, and /plants at the proxy root is another app.
    const atRoot = await serverOf(storeWith({}), 'http://127.0.0.1:3000/openapi.json');
    assert.equal(
      operationUrl(atRoot, 'https://edge.example/store/openapi.json'),
      'https://edge.example/store/plants',
    );
    const underApi = await serverOf(storeWith({ basePath: '/api' }), 'http://x/api/openapi.json');
    assert.equal(
      operationUrl(underApi, 'https://edge.example/store/api/openapi.json'),
      'https://edge.example/store/api/plants',
    );
  });
});

describe('createPlantStore({ trustProxy })', () => {
  it('throws a TypeError saying the server is relative now and naming publicUrl', () => {
    for (const trustProxy of [true, false, 2, undefined]) {
      assert.throws(() => storeWith({ trustProxy } as Partial<CreatePlantStoreOptions>), {
        name: 'TypeError',
        message:
          "trustProxy is retired: the OpenAPI document's server is relative now, right behind any proxy; set publicUrl to name an absolute one",
      });
    }
  });
});
