/**
 * The reference page behind a TLS-terminating proxy, in Debian's Chromium: the standalone server
 * behind a `node:https` proxy this test starts (a self-signed certificate made with `openssl`),
 * at the root, under a prefix the proxy passes on (`PLANT_STORE_BASE_PATH=/api`), and under one
 * it strips (with nothing set, and with `PLANT_STORE_PUBLIC_URL` naming it). "Try it out" must
 * reach the API through the proxy: an `http://` upstream in the document would be blocked as
 * mixed content and by the page's CSP, and a root-absolute URL would miss a stripped prefix.
 *
 * Skipped, saying why, without `/usr/bin/chromium`, this folder's playwright-core
 * (`npm ci --prefix test/browser`) or `openssl`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { READY, startCli } from '../support/cli-helpers.ts';
import type { Child } from '../support/node-helpers.ts';
import { noOpenssl, selfSigned } from '../support/tls.ts';
import { browserSkipReason, CHROMIUM, tryItOut, watchPage } from './page-helpers.ts';

const TOKEN = 'proxy-test-token';
const skip = browserSkipReason() || noOpenssl();

/**
 * A TLS-terminating reverse proxy as nginx is usually set up: requests under `prefix` go on to
 * the upstream with `Host` unchanged, the prefix kept or `strip`ped; anything else is a `404`
 * of its own. The upstream is set once the server behind it is up.
 */
async function tlsProxy(
  tls: { key: Buffer; cert: Buffer },
  prefix: string,
  strip: boolean,
): Promise<{ server: Server; base: string; forwardTo(upstream: URL): void }> {
  let upstream: URL | undefined;
  const server = createServer(tls, (req, res) => {
    const path = req.url ?? '/';
    if (upstream === undefined || !path.startsWith(`${prefix}/`)) {
      res.writeHead(404).end('not proxied');
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: strip ? path.slice(prefix.length) : path,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return { server, base, forwardTo: (url) => (upstream = url) };
}

/** The set-ups: where the proxy puts the API, and what the server is told. */
const SETUPS: ReadonlyArray<{
  name: string;
  prefix: string;
  strip: boolean;
  env: (base: string) => Record<string, string>;
}> = [
  { name: 'at the root', prefix: '', strip: false, env: () => ({}) },
  {
    name: 'under /api, passed on',
    prefix: '/api',
    strip: false,
    env: () => ({ PLANT_STORE_BASE_PATH: '/api' }),
  },
  { name: 'under /v1, stripped', prefix: '/v1', strip: true, env: () => ({}) },
  {
    name: 'under /v2, stripped, with the public URL set',
    prefix: '/v2',
    strip: true,
    env: (base) => ({ PLANT_STORE_PUBLIC_URL: base, PLANT_STORE_BASE_PATH: '/' }),
  },
];

describe('the reference page behind a TLS proxy, in Chromium', { skip }, () => {
  const children: Child[] = [];
  const proxies: Server[] = [];
  let browser: Browser | undefined;
  let context: BrowserContext;
  let tls: { key: Buffer; cert: Buffer };

  before(async () => {
    tls = selfSigned();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--ignore-certificate-errors'],
    });
    context = await browser.newContext({ ignoreHTTPSErrors: true });
  });

  after(async () => {
    await browser?.close();
    for (const child of children) child.kill();
    for (const proxy of proxies) proxy.close();
  });

  for (const setup of SETUPS) {
    it(`creates a plant with "Try it out" when the page is reached ${setup.name}`, async () => {
      const proxy = await tlsProxy(tls, setup.prefix, setup.strip);
      proxies.push(proxy.server);
      const child = startCli(
        { PORT: '0', PLANT_STORE_TOKENS: TOKEN, ...setup.env(proxy.base) },
        children,
      );
      proxy.forwardTo(new URL((await child.line(READY, 'the readiness line'))[1] as string));
      const publicBase = proxy.base;

      const page = await context.newPage();
      const { problems, calls } = watchPage(page);

      await page.goto(`${publicBase}/docs`);
      const shown = await tryItOut(page, TOKEN, '{"id": 7, "name": "Monstera"}');
      assert.equal(shown.status, '200');
      assert.deepEqual(JSON.parse(shown.answer), { name: 'Monstera' });

      assert.ok(calls.includes(`POST ${publicBase}/plants`), calls.join('\n'));
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
