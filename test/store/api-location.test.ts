/**
 * Where the API lives: `basePath`, `publicUrl` and `trustProxy` of `createPlantStore`, through
 * `store.fetch`.
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
    assert.equal(await serverOf(store, 'http://x/api/openapi.json'), 'http://x/api');
  });

  it('answers 404 at the unprefixed paths when basePath is set', async () => {
    const store = storeWith({ basePath: '/api/v1' });
    for (const url of ['http://x/plants', 'http://x/openapi.json', 'http://x/api/plants']) {
      const response = await store.fetch(new Request(url, { method: 'POST' }));
      assert.equal(response.status, 404, url);
      assert.deepEqual(await response.json(), { error: 404, message: 'not found' });
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
    assert.equal(await serverOf(store, 'http://x/openapi.json'), 'http://x');
  });

  it('throws a TypeError when basePath is malformed', () => {
    for (const basePath of ['api', '/api/', '/api?x=1', '/a//b', '', '/a b', 7]) {
      assert.throws(() => storeWith({ basePath: basePath as string }), {
        name: 'TypeError',
        message: /^basePath must be a URL path such as \/api/,
      });
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

describe('createPlantStore({ trustProxy })', () => {
  it('ignores forwarding headers when trustProxy is off', async () => {
    const store = storeWith({});
    assert.equal(
      await serverOf(store, 'http://127.0.0.1:3000/openapi.json', {
        forwarded: 'proto=https;host=api.example.com',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.com',
      }),
      'http://127.0.0.1:3000',
    );
  });

  it('names the forwarded scheme and host when trustProxy is true', async () => {
    const store = storeWith({ trustProxy: true, basePath: '/api' });
    assert.equal(
      await serverOf(store, 'http://127.0.0.1:3000/api/openapi.json', {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.com',
      }),
      'https://api.example.com/api',
    );
    assert.equal(
      await serverOf(store, 'http://127.0.0.1:3000/api/openapi.json', {
        'x-forwarded-proto': 'https',
      }),
      'https://127.0.0.1:3000/api',
    );
  });

  it('reads the nearest proxy entry of Forwarded when trustProxy is true', async () => {
    const store = storeWith({ trustProxy: true });
    assert.equal(
      await serverOf(store, 'http://127.0.0.1:3000/openapi.json', {
        forwarded:
          'for=1.2.3.4;proto=http;host=forged.example, for=192.0.2.60;proto=https;host="api.example.com:8443"',
        'x-forwarded-host': 'ignored.example',
      }),
      'https://api.example.com:8443',
    );
  });

  it('reads the entry n proxies away when trustProxy is a hop count', async () => {
    const store = storeWith({ trustProxy: 2 });
    assert.equal(
      await serverOf(store, 'http://127.0.0.1:3000/openapi.json', {
        'x-forwarded-proto': 'http, https, http',
        'x-forwarded-host': 'forged.example, cdn.example.com, lb.internal',
      }),
      'https://cdn.example.com',
    );
  });

  it('keeps the request origin when the forwarded values are hostile or malformed', async () => {
    const store = storeWith({ trustProxy: true });
    const hostile: Record<string, string>[] = [
      { 'x-forwarded-host': 'evil.example/<script>alert(1)</script>' },
      { 'x-forwarded-host': 'a"b' },
      { 'x-forwarded-host': 'evil.example:99999' },
      { 'x-forwarded-host': 'user@evil.example' },
      { 'x-forwarded-proto': 'javascript' },
      { forwarded: 'host="evil.example\\"><script>"' },
      { forwarded: 'proto=https;host=api.example.com;;garbage' },
    ];
    for (const headers of hostile) {
      const server = await serverOf(store, 'http://127.0.0.1:3000/openapi.json', headers);
      assert.equal(server, 'http://127.0.0.1:3000', JSON.stringify(headers));
    }
  });

  it('throws a TypeError when trustProxy is neither a boolean nor a positive hop count', () => {
    for (const trustProxy of [0, -1, 1.5, '1', 'true']) {
      assert.throws(() => storeWith({ trustProxy: trustProxy as number }), {
        name: 'TypeError',
        message: /^trustProxy must be true, false or a positive number/,
      });
    }
  });
});
