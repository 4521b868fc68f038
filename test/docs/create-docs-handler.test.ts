import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createDocsHandler, withDocs } from '../../lib/docs.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { toNodeListener } from '../../lib/node.ts';

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  new Request(`http://localhost${url}`, { method, headers });

describe('createDocsHandler', () => {
  const docs = createDocsHandler();

  it('serves the page at /docs with a policy that allows its own origin only', async () => {
    for (const [path, files, document] of [
      ['/docs', './docs/', './openapi.json'],
      ['/docs/', './', '../openapi.json'],
    ] as const) {
      const page = await docs(get(path));
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      const policy = page.headers.get('content-security-policy') ?? '';
      assert.match(policy, /default-src 'self'/);
      assert.match(policy, /script-src 'self';/);
      assert.match(policy, /connect-src 'self';/);
      const html = await page.text();
      // Relative to the page, so that a prefix a proxy adds or strips changes nothing.
      assert.ok(html.includes(`<script src="${files}swagger-ui-bundle.js"></script>`), path);
      assert.ok(html.includes(`<link rel="stylesheet" href="${files}swagger-ui.css">`), path);
      assert.ok(html.includes(`data-document-url="${document}"`), path);
      // Nothing from another origin: every URL in the page is relative to it.
      assert.doesNotMatch(html, /(?:src|href)="(?!\.\/|data:)/);
    }
  });

  it('takes its path, document URL and title as options, escaped', async () => {
    const custom = createDocsHandler({
      path: '/api/reference',
      documentUrl: 'https://api.example.com/openapi.json?v="1"',
      title: 'Plants <beta>',
    });
    const page = await custom(get('/reference'));
    const html = await page.text();
    assert.match(html, /<title>Plants &lt;beta&gt;<\/title>/);
    assert.match(html, /src="\.\/reference\/init\.js"/);
    assert.match(
      html,
      /data-document-url="https:\/\/api\.example\.com\/openapi\.json\?v=&quot;1&quot;"/,
    );
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /connect-src 'self' https:\/\/api\.example\.com;/,
    );
  });

  it('serves the renderer from the installed package, gzipped when the client takes it', async () => {
    for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      const original = readFileSync(join(dist, name));
      const zipped = await docs(get(`/docs/${name}`, { 'accept-encoding': 'gzip, deflate, br' }));
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers.get('content-encoding'), 'gzip');
      assert.equal(zipped.headers.get('vary'), 'Accept-Encoding');
      assert.match(
        zipped.headers.get('content-type') ?? '',
        name.endsWith('.js') ? /javascript/ : /css/,
      );
      assert.deepEqual(gunzipSync(Buffer.from(await zipped.arrayBuffer())), original);
      for (const encoding of [undefined, 'identity', 'gzip;q=0, br']) {
        const plain = await docs(
          get(`/docs/${name}`, encoding ? { 'accept-encoding': encoding } : {}),
        );
        assert.equal(plain.headers.get('content-encoding'), null, String(encoding));
        assert.deepEqual(Buffer.from(await plain.arrayBuffer()), original, String(encoding));
      }
    }
    const licenses = await docs(get('/docs/swagger-ui-bundle.js.LICENSE.txt'));
    assert.match(await licenses.text(), /Apache License[\s\S]*SmartBear/);
  });

  it('answers a matching If-None-Match with 304 and HEAD with no body', async () => {
    const first = await docs(get('/docs/swagger-ui.css', { 'accept-encoding': 'gzip' }));
    const etag = first.headers.get('etag') ?? '';
    assert.match(etag, /^"swagger-ui-[\d.]+-swagger-ui\.css-gzip"$/);
    const again = await docs(
      get('/docs/swagger-ui.css', { 'accept-encoding': 'gzip', 'if-none-match': etag }),
    );
    assert.equal(again.status, 304);
    assert.equal(again.body, null);
    for (const path of ['/docs', '/docs/init.js', '/docs/swagger-ui.css']) {
      const head = await docs(get(path, {}, 'HEAD'));
      assert.equal(head.status, 200, path);
      assert.equal(head.body, null, path);
    }
  });

  it('serves its start-up script, which turns the document into the reference', async () => {
    const script = await docs(get('/docs/init.js'));
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const text = await script.text();
    assert.match(text, /SwaggerUIBundle\(/);
    assert.match(text, /validatorUrl: null/);
  });

  it('answers 405 with Allow: GET, HEAD to other methods', async () => {
    const answer = await docs(get('/docs', {}, 'POST'));
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.get('allow'), 'GET, HEAD');
    assert.deepEqual(await answer.json(), { error: 405, message: 'method not allowed' });
  });

  it('throws a TypeError for a malformed option', () => {
    for (const options of [
      { path: 'docs' },
      { path: '/docs/' },
      { path: '/' },
      { path: '/do cs' },
      { documentUrl: '' },
      { documentUrl: 'openapi.json' },
      { documentUrl: 'ftp://x/openapi.json' },
      { title: 1 },
      { onError: 'log' },
    ]) {
      assert.throws(() => createDocsHandler(options as never), TypeError, JSON.stringify(options));
    }
  });

  it('throws a TypeError naming an unknown option and the known ones', () => {
    assert.throws(() => createDocsHandler({ documentURL: '/spec.json' } as never), {
      name: 'TypeError',
      message:
        'createDocsHandler: unknown option "documentURL" (known: path, documentUrl, title, onError)',
    });
  });
});

describe('withDocs', () => {
  const store = createPlantStore({ verifier: createStaticTokenVerifier(['tok']) });
  const handler = withDocs(store.fetch);

  it('sends the page and its files to the reference, everything else to the store', async () => {
    for (const path of ['/docs', '/docs/', '/docs/init.js', '/docs/swagger-ui.css']) {
      const answer = await handler(get(path));
      assert.equal(answer.status, 200, path);
      assert.doesNotMatch(answer.headers.get('content-type') ?? '', /json/, path);
    }
    assert.equal((await handler(get('/openapi.json'))).status, 200);
    for (const path of ['/docs/other.js', '/docsx', '/']) {
      assert.equal((await handler(get(path))).status, 404, path);
    }
    assert.equal((await handler(get('/plants', {}, 'POST'))).status, 401);
  });

  it("keeps a plant store's fast path: plant-store/node answers /plants without making a Request", async (t) => {
    const Native = globalThis.Request;
    let made = 0;
    globalThis.Request = class extends Native {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        made++;
      }
    };
    t.after(() => {
      globalThis.Request = Native;
    });
    const cases: Array<[string, (request: Request) => Promise<Response>, boolean]> = [
      ['withDocs(store.fetch)', handler, true],
      // handleCreatePlant answers every path: kept, it would answer /docs too.
      ['withDocs(store.handleCreatePlant)', withDocs(store.handleCreatePlant), false],
      ['a page at /plants', withDocs(store.fetch, { path: '/plants' }), false],
    ];
    for (const [name, fetch, fast] of cases) {
      const server = createServer(toNodeListener(fetch));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      t.after(() => server.close());
      made = 0;
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const { port } = server.address() as AddressInfo;
        const headers = { authorization: 'Bearer tok', 'content-type': 'application/json' };
        const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/plants', headers });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end('{"id": 1, "name": "Fern"}');
      });
      assert.ok(status === 200 || status === 405, `${name}: ${status}`);
      assert.equal(made === 0, fast, `${name}: ${made} Request(s) made`);
    }
  });

  it('throws a TypeError without a handler', () => {
    assert.throws(() => withDocs(undefined as never), TypeError);
  });

  it('throws a TypeError naming an unknown option and the known ones', () => {
    assert.throws(() => withDocs(store.fetch, { paht: '/reference' } as never), {
      name: 'TypeError',
      message: /^withDocs: unknown option "paht" \(known: .*\bpath\b/,
    });
  });
});
