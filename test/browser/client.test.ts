/**
 * `plant-store/client` in a real browser: Debian's Chromium, driven by playwright-core, loads a
 * page of one local origin that imports the client (bundled by esbuild, as an app would) and
 * creates plants in a store of another origin with CORS on. The repository then holds exactly
 * the ids the page sent, 2^63-1 and 2^63-2, which no `number` can tell apart; and the page waits
 * a `503`'s `Retry-After`, which CORS exposes to it.
 *
 * Skipped, saying why, without `/usr/bin/chromium` or this folder's package (`npm ci --prefix
 * test/browser`).
 *
 * @module
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { createCors } from '../../lib/cors.ts';
import {
  createPlantStore,
  createStaticTokenVerifier,
  PlantApiError,
  type PlantRepository,
} from '../../lib/index.ts';
import { type ServeHandle, serve } from '../../lib/node.ts';
import { withDeadline } from '../support/node-helpers.ts';
import { mapRepository } from '../support/web-fakes.ts';
import { browserSkipReason, CHROMIUM } from './page-helpers.ts';

const TOKEN = 'browser-client-token';
const skip = browserSkipReason();

/** What the page's `createPlant` gave: the Plant, or the error's name, status and fields. */
type Outcome =
  | { plant: unknown }
  | {
      error: {
        name: string;
        code?: string;
        status?: number;
        requestId?: string;
        retryAfter?: number;
        message: string;
      };
    };

describe('plant-store/client in Chromium', { skip }, () => {
  const { repository, plants } = mapRepository();
  const outside: string[] = [];
  /** What the page's own server was asked for, past the page and its script. */
  const pageRequests: string[] = [];
  let page: Server;
  let api: ServeHandle;
  let context: BrowserContext;
  let userDataDir: string;
  let appOrigin: string;

  before(async () => {
    const bundled = await build({
      entryPoints: [fileURLToPath(new URL('../../lib/client.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'error',
    });
    const script = bundled.outputFiles[0]?.text ?? '';
    page = createServer((request, response) => {
      const status = /^\/moved-(\d{3})\/plants$/.exec(request.url ?? '')?.[1];
      if (status !== undefined || request.url === '/elsewhere') {
        pageRequests.push(`${request.method} ${request.url}`);
      }
      if (status !== undefined) {
        // A redirect of the page's own origin: the one a moved API behind the page's server makes.
        response.writeHead(Number(status), { location: '/elsewhere' });
        response.end();
        return;
      }
      if (request.url === '/elsewhere') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"name":"Fern"}');
        return;
      }
      if (request.url === '/client.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        response.end(script);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>a plant app</title><p>a plant app</p>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    appOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const store = createPlantStore({
      repository,
      verifier: createStaticTokenVerifier([TOKEN]),
      cors: createCors({ origins: [appOrigin] }),
    });
    api = await serve({ fetch: store.fetch, port: 0, host: '127.0.0.1', requestIds: true });
    const { chromium } = await import('playwright-core');
    userDataDir = mkdtempSync(join(tmpdir(), 'plant-store-chromium-client-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    context.on('request', (request) => {
      if (new URL(request.url()).hostname !== '127.0.0.1') outside.push(request.url());
    });
  });

  after(async () => {
    await context?.close();
    await api?.close();
    page?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    assert.deepEqual(outside, [], 'the browser made requests that left 127.0.0.1');
  });

  /**
   * Creates a plant from the page; the id is a decimal string turned into a BigInt there. The
   * client retries by default; `retry: false` makes one attempt.
   */
  function createFrom(
    tab: Page,
    id: string,
    name: string,
    { baseUrl = api.url, retry = true } = {},
  ): Promise<Outcome> {
    return tab.evaluate(
      async ({ baseUrl, token, id, name, retry }): Promise<Outcome> => {
        const { createPlantClient } = await import('/client.js' as string);
        const client = createPlantClient({ baseUrl, token, ...(retry ? {} : { retry: false }) });
        try {
          return { plant: await client.createPlant({ id: BigInt(id), name }) };
        } catch (error) {
          const { name, code, status, requestId, retryAfter, message } = error as {
            name: string;
            code?: string;
            status?: number;
            requestId?: string;
            retryAfter?: number;
            message: string;
          };
          return { error: { name, code, status, requestId, retryAfter, message } };
        }
      },
      { baseUrl, token: TOKEN, id, name, retry },
    );
  }

  it('stores ids 2^63-1 and 2^63-2 exactly when a page of another origin creates them', async () => {
    const tab = await context.newPage();
    await tab.goto(appOrigin);
    const top = await withDeadline(createFrom(tab, '9223372036854775807', 'Monstera'), '2^63-1');
    const next = await withDeadline(createFrom(tab, '9223372036854775806', 'Fern'), '2^63-2');
    assert.deepEqual(top, { plant: { name: 'Monstera' } });
    assert.deepEqual(next, { plant: { name: 'Fern' } });
    assert.deepEqual(
      [...plants],
      [
        [9223372036854775807n, { name: 'Monstera' }],
        [9223372036854775806n, { name: 'Fern' }],
      ],
    );
  });

  it('rejects a changed plant with a status error that carries the request id the server exposed', async () => {
    const tab = await context.newPage();
    await tab.goto(appOrigin);
    const outcome = await withDeadline(
      createFrom(tab, '9223372036854775807', 'Fern'),
      'the conflict',
    );
    assert.ok('error' in outcome, JSON.stringify(outcome));
    assert.equal(outcome.error.name, 'PlantClientError');
    assert.equal(outcome.error.code, 'ERR_STATUS');
    assert.equal(outcome.error.status, 409);
    assert.match(outcome.error.requestId ?? '', /^.{1,200}$/);
  });

  it("waits the server's Retry-After before retrying when the store answers 503 to a page of another origin", async (t) => {
    // A store whose storage is down for the first two creates: it answers 503 with Retry-After: 1.
    const arrivals: number[] = [];
    const repository: PlantRepository = {
      create: () => {
        arrivals.push(performance.now());
        if (arrivals.length <= 2) throw new PlantApiError('ERR_STORE_UNAVAILABLE');
        return { created: true };
      },
    };
    const store = createPlantStore({
      repository,
      verifier: createStaticTokenVerifier([TOKEN]),
      cors: createCors({ origins: [appOrigin] }),
      onError: () => {},
    });
    const down = await serve({ fetch: store.fetch, port: 0, host: '127.0.0.1' });
    t.after(() => down.close());
    const tab = await context.newPage();
    await tab.goto(appOrigin);
    // The page reads the wait the answer asked for...
    const once = await withDeadline(
      createFrom(tab, '1', 'Fern', { baseUrl: down.url, retry: false }),
      'one attempt',
    );
    assert.ok('error' in once, JSON.stringify(once));
    assert.equal(once.error.status, 503);
    assert.equal(once.error.retryAfter, 1);
    // ...and waits it, not its own first backoff (125 to 250 ms), before the retry that stores.
    const retried = await withDeadline(
      createFrom(tab, '1', 'Fern', { baseUrl: down.url }),
      'a create retried',
    );
    assert.deepEqual(retried, { plant: { name: 'Fern' } });
    assert.equal(arrivals.length, 3);
    const waited = (arrivals[2] ?? 0) - (arrivals[1] ?? 0);
    assert.ok(waited >= 950, `the retry came ${Math.round(waited)} ms after the 503`);
  });

  it('rejects a redirect the browser hides as an unexpected answer, neither following nor retrying it', async () => {
    // Followed, the create would resolve to the Plant-shaped 200 at its end, which no store sent.
    const tab = await context.newPage();
    await tab.goto(appOrigin);
    for (const status of ['302', '307']) {
      pageRequests.length = 0;
      const baseUrl = `${appOrigin}/moved-${status}`;
      const outcome = await withDeadline(createFrom(tab, '1', 'Fern', { baseUrl }), `a ${status}`);
      assert.ok('error' in outcome, JSON.stringify(outcome));
      assert.equal(outcome.error.code, 'ERR_UNEXPECTED_RESPONSE');
      assert.equal(outcome.error.status, 0);
      assert.match(outcome.error.message, /\(0\) redirects to a URL not shown: fix baseUrl/);
      assert.deepEqual(pageRequests, [`POST /moved-${status}/plants`]);
    }
  });
});
