/**
 * Where the API lives, over real sockets: a store with `basePath` or `publicUrl` served by
 * `plant-store/node`'s `serve`, its fast path included.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { serve } from '../../lib/node.ts';
import { mountStore, TOKEN } from '../support/mount-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';

/** One request over a socket, with exactly the headers given (a `Host` of our choosing too). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return withDeadline(
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    }),
    `${method} ${path}`,
  );
}

describe('serve with a store that has basePath or publicUrl', () => {
  it('serves the routes under the base path, its document naming "." whatever the headers say', async (t) => {
    const { store } = mountStore({ basePath: '/api' });
    const handle = await serve({ fetch: store.fetch, port: 0, host: '127.0.0.1' });
    t.after(() => handle.close());
    const { port } = handle;
    const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const created = await send(port, 'POST', '/api/plants', json, '{"id": 1, "name": "Monstera"}');
    assert.deepEqual(created, { status: 200, body: '{"name":"Monstera"}' });
    const unprefixed = await send(port, 'POST', '/plants', json, '{"id": 1, "name": "Monstera"}');
    assert.equal(unprefixed.status, 404);
    assert.equal((await send(port, 'GET', '/api/plants', {})).status, 405);

    const proxied = await send(port, 'GET', '/api/openapi.json', {
      host: 'internal:3000',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    assert.equal(proxied.status, 200);
    assert.deepEqual(JSON.parse(proxied.body).servers, [{ url: '.' }]);
    const plain = await send(port, 'GET', '/api/openapi.json', {});
    assert.equal(plain.body, proxied.body);
  });

  it('names the public URL whatever the request says when publicUrl is set', async (t) => {
    const { store } = mountStore({ publicUrl: 'https://api.example.com/v1' });
    const handle = await serve({ fetch: store.fetch, port: 0, host: '127.0.0.1' });
    t.after(() => handle.close());
    const response = await send(handle.port, 'GET', '/v1/openapi.json', {
      'x-forwarded-host': 'other.example',
    });
    assert.equal(JSON.parse(response.body).servers[0].url, 'https://api.example.com/v1');
  });
});
