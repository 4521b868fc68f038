/**
 * `withDocs` in front of a store with `basePath` or `publicUrl`: the page follows the store's
 * base path, "Try it out" calls the API wherever a proxy put the page, and the page's
 * Content-Security-Policy lets it call the public URL.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withDocs } from '../../lib/docs.ts';
import { mountStore } from '../support/mount-helpers.ts';
import { operationUrl } from '../support/openapi.ts';

function connectSources(response: Response): string[] {
  const policy = response.headers.get('content-security-policy') ?? '';
  const directive = policy.split('; ').find((part) => part.startsWith('connect-src '));
  return (directive ?? '').split(' ').slice(1);
}

describe('withDocs in front of a store', () => {
  it('serves the page under the base path, rendering the document there, when basePath is set', async () => {
    const fetch = withDocs(mountStore({ basePath: '/api' }).store.fetch);
    const page = await fetch(new Request('http://x/api/docs'));
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /data-document-url="\.\/openapi\.json"/);
    assert.match(html, /src="\.\/docs\/swagger-ui-bundle\.js"/);
    assert.equal((await fetch(new Request('http://x/api/docs/init.js'))).status, 200);
    assert.equal((await fetch(new Request('http://x/docs'))).status, 404);
    assert.equal((await fetch(new Request('http://x/api/openapi.json'))).status, 200);
  });

  it('keeps the path and document it is given when options name them', async () => {
    const fetch = withDocs(mountStore({ basePath: '/api' }).store.fetch, { path: '/reference' });
    const page = await fetch(new Request('http://x/reference'));
    assert.match(await page.text(), /data-document-url="\.\/api\/openapi\.json"/);
  });

  it('points "Try it out" at the API under the page when a proxy strips its prefix', async () => {
    for (const base of ['', '/api']) {
      const fetch = withDocs(mountStore({ basePath: base || '/' }).store.fetch);
      // What a browser sees of nginx's `location /store/ { proxy_pass http://store/; }`.
      const seen = `https://edge.example/store${base}`;
      const html = await (await fetch(new Request(`http://x${base}/docs`))).text();
      const reference = /data-document-url="([^"]+)"/.exec(html)?.[1] ?? '';
      const documentUrl = new URL(reference, `${seen}/docs`).href;
      assert.equal(documentUrl, `${seen}/openapi.json`);
      const served = await fetch(new Request(`http://x${base}/openapi.json`));
      const { servers } = (await served.json()) as { servers: { url: string }[] };
      assert.equal(operationUrl(servers[0]?.url ?? '', documentUrl), `${seen}/plants`);
      assert.deepEqual(servers, [{ url: '.' }]);
    }
  });

  it("lets the page call the public URL's origin when publicUrl is set", async () => {
    const { store } = mountStore({ publicUrl: 'https://api.example.com/v1' });
    const page = await withDocs(store.fetch)(new Request('http://localhost:3000/v1/docs'));
    assert.equal(page.status, 200);
    assert.deepEqual(connectSources(page), ["'self'", 'https://api.example.com']);
  });

  it('lets the page call its own origin only when publicUrl is not set', async () => {
    const page = await withDocs(mountStore().store.fetch)(new Request('http://x/docs'));
    assert.deepEqual(connectSources(page), ["'self'"]);
  });
});
