/**
 * `checkServer` and `plant-store conform` against a store mounted under `/api` in a real Fastify
 * app and a real Express app: the host answers unknown paths under its prefix with its own 404,
 * so `mounted` skips that one check and says so; every message names the full path.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import express from 'express';
import Fastify from 'fastify';
import { createRouter } from '../../lib/express.ts';
import plantStore from '../../lib/fastify.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { checkServer } from '../../lib/testing.ts';
import type { Child } from '../support/node-helpers.ts';
import { conform } from './conform-child.ts';

const TOKEN = 'mounted-test-token';
const CHECKS = 35;
const ROUTES = 'routes: answers 404 with the Error body for an unknown path, without a token';
const REASON =
  'mounted: the host answers unknown paths under its prefix (its own 404), not the store';
const closers: Array<() => Promise<void>> = [];
const children: Child[] = [];
after(async () => {
  for (const child of children) child.kill();
  for (const close of closers) await close();
});

const store = () => createPlantStore({ verifier: createStaticTokenVerifier([TOKEN]) });

/** A Fastify app with the store's plugin under `/api`; its base URL. */
async function fastifyApp(): Promise<string> {
  const app = Fastify();
  app.register(plantStore, { store: store(), prefix: '/api' });
  closers.push(() => app.close());
  return `${await app.listen({ port: 0, host: '127.0.0.1' })}/api`;
}

/** An Express app with the store's router under `/api`; its base URL. */
async function expressApp(): Promise<string> {
  const app = express();
  app.use('/api', createRouter(store()));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

describe('checkServer against a store mounted in a framework', () => {
  for (const [framework, app] of [
    ['Fastify', fastifyApp],
    ['Express', expressApp],
  ] as const) {
    it(`passes every check but the host's 404, which it skips saying why, when mounted is set under ${framework}`, async () => {
      const skipped: string[] = [];
      const report = await checkServer({
        baseUrl: await app(),
        token: TOKEN,
        mounted: true,
        onResult: (result) => {
          if (result.skipped !== undefined) skipped.push(`${result.name}: ${result.skipped}`);
        },
      });
      assert.deepEqual(
        report.failed.map(({ error }) => error.message),
        [],
      );
      assert.equal(report.passed.length, CHECKS - 1);
      assert.deepEqual(report.skipped, [{ name: ROUTES, reason: REASON }]);
      assert.deepEqual(skipped, [`${ROUTES}: ${REASON}`]);
    });

    it(`fails only the host's 404, naming the full path it asked for, when mounted is not set under ${framework}`, async () => {
      const report = await checkServer({ baseUrl: await app(), token: TOKEN });
      assert.deepEqual(
        report.failed.map(({ name }) => name),
        [ROUTES],
      );
      assert.match(
        report.failed[0]?.error.message ?? '',
        /^routes( \(Error body\))?: GET \/api\/plant-store-conform-[0-9a-f]{16} \(no Authorization, no Content-Type, no body\) answered 404 /,
      );
    });
  }

  it('names the request by its full path when the token is refused under a prefix', async () => {
    const report = await checkServer({ baseUrl: await fastifyApp(), token: 'not-the-token' });
    assert.deepEqual(
      report.failed.map(({ error }) => error.message),
      [
        'token: the token was refused: POST /api/plants with it answered 401 (body {"error":401,"message":"the bearer token is not valid"})',
      ],
    );
  });

  it('throws a TypeError when mounted is not a boolean', async () => {
    await assert.rejects(
      checkServer({ baseUrl: 'http://x', token: TOKEN, mounted: 'yes' as never }),
      { name: 'TypeError', message: 'checkServer: mounted must be a boolean, got yes' },
    );
  });
});

describe('plant-store conform --mounted', () => {
  it('prints the skipped check with its reason in TAP and JUnit XML and exits 0 when the store is mounted in Express', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'plant-store-mounted-'));
    closers.push(async () => rmSync(scratch, { recursive: true, force: true }));
    const junit = join(scratch, 'mounted.xml');
    const run = await conform(
      [await expressApp(), '--token', TOKEN, '--mounted', '--junit', junit],
      children,
    );
    assert.equal(run.code, 0, run.stdout);
    assert.ok(run.stdout.includes(`\nok 2 - ${ROUTES} # SKIP ${REASON}\n`), run.stdout);
    assert.ok(run.stdout.endsWith(`1..${CHECKS}\n# ${CHECKS - 1} passed, 0 failed, 1 skipped\n`));
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, new RegExp(`tests="${CHECKS}" failures="0" errors="0" skipped="1"`));
    assert.ok(xml.includes(`<skipped message="${REASON}"/>`), xml);
  });
});
