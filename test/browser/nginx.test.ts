/**
 * The reference page behind a real nginx (Debian's), in Debian's Chromium: the standalone server
 * (`serve` inside) behind the proxy set-ups deployments write, with another app at the proxy's
 * root that answers every request as if it had stored a plant. "Try it out" must reach the store
 * with nothing set but where the routes are: a document whose server resolves to the proxy's root
 * would send the create and its bearer token to that app instead.
 *
 * Skipped, saying why, without `/usr/bin/chromium`, this folder's playwright-core
 * (`npm ci --prefix test/browser`) or `/usr/sbin/nginx` (`apt-get install nginx`).
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { postPlant, READY, startCli } from '../support/cli-helpers.ts';
import { noNginx, type Nginx, startNginx } from '../support/nginx.ts';
import type { Child } from '../support/node-helpers.ts';
import { browserSkipReason, CHROMIUM, tryItOut, watchPage } from './page-helpers.ts';

const TOKEN = 'nginx-test-token';
const skip = browserSkipReason() || noNginx();

/** The set-ups: nginx's `location` for the store, and where the store's routes are. */
const SETUPS: ReadonlyArray<{
  name: string;
  location: string;
  /** The URI part of `proxy_pass`: `/` strips the location's prefix, none passes it on. */
  uri: '/' | '';
  basePath: string;
  /** Where a browser finds the API through nginx. */
  publicPath: string;
}> = [
  {
    name: 'strips the prefix (location /store/ { proxy_pass http://store/; })',
    location: '/store/',
    uri: '/',
    basePath: '/',
    publicPath: '/store',
  },
  {
    name: 'strips a prefix over the base path (location /edge/, a store under /api)',
    location: '/edge/',
    uri: '/',
    basePath: '/api',
    publicPath: '/edge/api',
  },
  {
    name: 'passes the prefix on to a store under it (location /api/ { proxy_pass http://store; })',
    location: '/api/',
    uri: '',
    basePath: '/api',
    publicPath: '/api',
  },
];

describe('the reference page behind nginx, in Chromium', { skip }, () => {
  const children: Child[] = [];
  const proxies: Nginx[] = [];
  const outside: string[] = [];
  /** What reached the app at the proxy's root: method, path and `Authorization`. */
  const decoyHeard: string[] = [];
  let decoy: Server;
  let browser: Browser | undefined;
  let context: BrowserContext;

  before(async () => {
    decoy = createServer((req, res) => {
      decoyHeard.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"Monstera"}');
    });
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    context = await browser.newContext();
    // Nothing may leave 127.0.0.1: such a request is failed here and the suite fails after.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
      outside.push(url.href);
      return route.abort();
    });
  });

  after(async () => {
    await browser?.close();
    for (const child of children) child.kill();
    for (const proxy of proxies) await proxy.stop();
    decoy?.close();
    assert.deepEqual(outside, [], 'the browser made requests that left 127.0.0.1');
  });

  for (const setup of SETUPS) {
    it(`creates a plant with "Try it out" in the store, and the app at the root hears nothing, when nginx ${setup.name}`, async () => {
      const child = startCli(
        { PORT: '0', PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_BASE_PATH: setup.basePath },
        children,
      );
      const store = new URL((await child.line(READY, 'the readiness line'))[1] as string);
      const decoyPort = (decoy.address() as AddressInfo).port;
      const proxy = await startNginx(`
    location ${setup.location} { proxy_pass http://127.0.0.1:${store.port}${setup.uri}; }
    location / { proxy_pass http://127.0.0.1:${decoyPort}; }`);
      proxies.push(proxy);
      const api = `${proxy.url}${setup.publicPath}`;
      decoyHeard.length = 0;

      const page = await context.newPage();
      const { problems, calls } = watchPage(page);
      await page.goto(`${api}/docs`);
      const shown = await tryItOut(page, TOKEN, '{"id": 7, "name": "Monstera"}');

      assert.deepEqual(decoyHeard, [], 'the app at the proxy root heard the create');
      assert.ok(calls.includes(`POST ${api}/plants`), calls.join('\n'));
      assert.equal(shown.status, '200');
      assert.deepEqual(JSON.parse(shown.answer), { name: 'Monstera' });
      // Stored: the same id with another name is a conflict at the store itself.
      const direct = `${store.origin}${setup.basePath === '/' ? '' : setup.basePath}`;
      assert.equal((await postPlant(direct, TOKEN, { id: 7, name: 'Fern' })).status, 409);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
