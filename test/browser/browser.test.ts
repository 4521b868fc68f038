/**
 * The standalone server in a real browser (#23): Debian's Chromium, driven by playwright-core
 * (never a downloaded browser), against `lib/cli/main.ts` as `npm start` runs it.
 *
 * - The reference page at `/docs`: a person's path through it, from Authorize to a `200` Plant
 *   and a `409` on a changed replay; a screenshot of it goes to `test/browser/artifacts/`
 *   (git-ignored; `UPDATE_SCREENSHOT=1` also refreshes the one the README shows).
 * - CORS: a page of a second local origin creates a plant with `fetch` when its origin is
 *   allowed, listed or under an allowed subdomain pattern, and the browser blocks it when it is not.
 * - Every request the browser makes must stay on 127.0.0.1 (or the pattern's test domain, mapped
 *   to it): the page loads nothing from a CDN.
 *
 * Without `/usr/bin/chromium` (`apt-get install chromium`) or without this folder's own package
 * (`npm ci --prefix test/browser`: playwright-core), the suite is skipped and says so.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { postPlant, READY, startCli } from '../support/cli-helpers.ts';
import type { Child } from '../support/node-helpers.ts';
import { browserSkipReason, CHROMIUM, createFrom, originServer } from './page-helpers.ts';

const PATTERN_DOMAIN = 'plants.test';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Names for the pages of the subdomain-pattern origins, resolved here and never asked of DNS.
  `--host-resolver-rules=MAP ${PATTERN_DOMAIN} 127.0.0.1, MAP *.${PATTERN_DOMAIN} 127.0.0.1`,
];
const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const README_SCREENSHOT = fileURLToPath(new URL('../../docs/api-reference.png', import.meta.url));
const TOKEN = 'browser-test-token';
const skip = browserSkipReason();

describe('the standalone server in Chromium', { skip }, () => {
  const children: Child[] = [];
  const servers: Server[] = [];
  const outside: string[] = [];
  let context: BrowserContext;
  let userDataDir: string;
  let appOrigin: string;
  let strangerOrigin: string;
  let patternPort: string;
  let api: string;

  before(async () => {
    appOrigin = await originServer(servers);
    strangerOrigin = await originServer(servers);
    patternPort = new URL(await originServer(servers)).port;
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_CORS_ORIGINS: `${appOrigin}, http://*.${PATTERN_DOMAIN}:${patternPort}`,
      },
      children,
    );
    api = (await child.line(READY, 'the readiness line'))[1] as string;
    const { chromium } = await import('playwright-core');
    userDataDir = mkdtempSync(join(tmpdir(), 'plant-store-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    context.on('request', (request) => {
      const url = new URL(request.url());
      const local =
        url.hostname === '127.0.0.1' || `.${url.hostname}`.endsWith(`.${PATTERN_DOMAIN}`);
      if (url.protocol !== 'data:' && !local) outside.push(request.url());
    });
  });

  after(async () => {
    await context?.close();
    for (const child of children) child.kill();
    for (const server of servers) server.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    assert.deepEqual(outside, [], 'the browser made requests that left 127.0.0.1');
  });

  it('creates a plant through the reference page at /docs, then shows 409 on a changed replay', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      // The 409 itself is logged as a failed load; anything else (a CSP refusal, say) is a problem.
      if (message.type() === 'error' && !/status of 409 \(Conflict\)/.test(message.text())) {
        problems.push(message.text());
      }
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${api}/docs`);
    await page.locator('.swagger-ui .info .title').getByText('OpenAPI Plant Store').waitFor();
    // The document's server is `.`: the page resolves it against where it fetched it.
    await page.locator('.servers select option[value="."]').waitFor({ state: 'attached' });

    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.modal-ux input').fill(TOKEN);
    await page.locator('.modal-ux button.authorize[type=submit]').click();
    await page.locator('.modal-ux button.btn-done').click();

    const operation = page.locator('#operations-plants-createPlant');
    await operation.locator('.opblock-summary').click();
    const body = operation.locator('textarea.body-param__text');
    const execute = operation.locator('button.execute');
    const status = operation.locator('.live-responses-table .response-col_status');
    const answer = operation.locator('.live-responses-table .response-col_description pre');

    await body.fill('{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}');
    await execute.click();
    await status.getByText('200').waitFor();
    assert.deepEqual(JSON.parse((await answer.first().textContent()) ?? ''), {
      name: 'Monstera',
      tag: 'aroid',
    });
    // The page from its title down to the server's answer: what a person sees after a create.
    const bottom = await operation
      .locator('.live-responses-table')
      .first()
      .evaluate((table) => table.getBoundingClientRect().bottom + window.scrollY);
    const clip = { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 };
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'api-reference.png'), fullPage: true, clip });
    if (process.env.UPDATE_SCREENSHOT === '1') {
      await page.screenshot({ path: README_SCREENSHOT, fullPage: true, clip });
    }

    await body.fill('{"id": 9007199254740993, "name": "Fern"}');
    await execute.click();
    await status.getByText('409').waitFor();
    assert.deepEqual(JSON.parse((await answer.first().textContent()) ?? ''), {
      error: 409,
      message: 'a different plant is already stored under this id',
    });
    // Stored under the exact id the person typed: the same plant again is an idempotent 200.
    const replay = await postPlant(
      api,
      TOKEN,
      '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}',
    );
    assert.equal(replay.status, 200);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('lets a page of an allowed origin create a plant with fetch, and read why a token failed', async () => {
    const page = await context.newPage();
    await page.goto(`${appOrigin}/`);
    const created = await createFrom(page, api, TOKEN, JSON.stringify({ id: 42, name: 'Ivy' }));
    assert.deepEqual(created, { status: 200, body: '{"name":"Ivy"}', challenge: null });
    const refused = await createFrom(
      page,
      api,
      'not-the-token',
      JSON.stringify({ id: 43, name: 'Ivy' }),
    );
    assert.equal(refused.status, 401);
    // Exposed by Access-Control-Expose-Headers, so a browser client can tell why.
    assert.equal(refused.challenge, 'Bearer realm="plant-store", error="invalid_token"');
    await page.close();
  });

  it('blocks a page of an origin that is not allowed, and nothing is stored', async () => {
    const page = await context.newPage();
    await page.goto(`${strangerOrigin}/`);
    const blocked = await createFrom(page, api, TOKEN, JSON.stringify({ id: 44, name: 'Ivy' }));
    assert.equal(blocked.status, undefined, JSON.stringify(blocked));
    assert.match(blocked.error ?? '', /TypeError: Failed to fetch/);
    // The preflight failed, so the create itself was never sent: id 44 is still free.
    const other = await postPlant(api, TOKEN, { id: 44, name: 'Moss' });
    assert.equal(other.status, 200);
    await page.close();
  });

  it('lets a page of an origin under an allowed pattern create a plant, and blocks the bare domain', async () => {
    const page = await context.newPage();
    await page.goto(`http://shop.eu.${PATTERN_DOMAIN}:${patternPort}/`);
    const created = await createFrom(page, api, TOKEN, JSON.stringify({ id: 45, name: 'Fern' }));
    assert.deepEqual(created, { status: 200, body: '{"name":"Fern"}', challenge: null });
    // The pattern takes labels under the domain, never the domain itself.
    await page.goto(`http://${PATTERN_DOMAIN}:${patternPort}/`);
    const blocked = await createFrom(page, api, TOKEN, JSON.stringify({ id: 46, name: 'Fern' }));
    assert.match(blocked.error ?? '', /TypeError: Failed to fetch/, JSON.stringify(blocked));
    assert.equal((await postPlant(api, TOKEN, { id: 46, name: 'Moss' })).status, 200);
    await page.close();
  });
});
