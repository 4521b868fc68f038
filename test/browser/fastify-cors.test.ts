/**
 * plant-store/fastify in a Fastify app whose own `@fastify/cors` allows a second local origin,
 * in Debian's Chromium: a page of that origin creates a plant with `fetch` (the preflight, then
 * the `POST`, both answered with the host plug-in's headers), reads the store's challenge on a
 * refused token, and a page of another origin is blocked. The store has no `cors` option: the
 * host's plug-in decides.
 *
 * Without `/usr/bin/chromium` or without this folder's own package (`npm ci --prefix
 * test/browser`: playwright-core and @fastify/cors), the suite is skipped and says so.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BrowserContext } from 'playwright-core';
import plantStore from '../../lib/fastify.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { browserSkipReason, CHROMIUM, createFrom, originServer } from './page-helpers.ts';

const TOKEN = 'fastify-cors-token';
const skip = browserSkipReason('@fastify/cors');

describe('plant-store/fastify behind @fastify/cors in Chromium', { skip }, () => {
  const servers: Server[] = [];
  let app: FastifyInstance;
  let context: BrowserContext;
  let userDataDir: string;
  let appOrigin: string;
  let strangerOrigin: string;
  let api: string;

  before(async () => {
    appOrigin = await originServer(servers);
    strangerOrigin = await originServer(servers);
    const { default: fastifyCors } = await import('@fastify/cors');
    app = Fastify();
    await app.register(fastifyCors, { origin: appOrigin, exposedHeaders: ['WWW-Authenticate'] });
    const store = createPlantStore({ verifier: createStaticTokenVerifier([TOKEN]) });
    await app.register(plantStore, { store, prefix: '/api' });
    api = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
    const { chromium } = await import('playwright-core');
    userDataDir = mkdtempSync(join(tmpdir(), 'plant-store-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });

  after(async () => {
    await context?.close();
    await app?.close();
    for (const server of servers) server.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it("creates a plant from the allowed origin's page, exact int64 id and all", async () => {
    const page = await context.newPage();
    await page.goto(appOrigin);
    const body = '{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}';
    const created = await createFrom(page, api, TOKEN, body);
    assert.deepEqual(created, {
      status: 200,
      body: '{"name":"Monstera","tag":"aroid"}',
      challenge: null,
    });
    // The id was stored exactly: its neighbour is free, the same plant a replay.
    const neighbour = '{"id": 9007199254740992, "name": "Fern"}';
    assert.equal((await createFrom(page, api, TOKEN, neighbour)).status, 200);
    assert.equal((await createFrom(page, api, TOKEN, body)).status, 200);
    const refused = await createFrom(page, api, 'wrong-token', body);
    assert.equal(refused.status, 401);
    assert.equal(refused.challenge, 'Bearer realm="plant-store", error="invalid_token"');
    await page.close();
  });

  it("is blocked by the browser on another origin's page", async () => {
    const page = await context.newPage();
    await page.goto(strangerOrigin);
    const seen = await createFrom(page, api, TOKEN, '{"id": 2, "name": "Pilea"}');
    assert.match(seen.error ?? '', /Failed to fetch/);
    await page.close();
  });
});
