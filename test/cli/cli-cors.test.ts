/**
 * The standalone server's `PLANT_STORE_CORS_ORIGINS` (#23), over the real process: a preflight
 * from an allowed origin or one under an allowed pattern, the headers on a create, and a bad value's exit.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { exitsWithOneLine, READY, startCli } from '../support/cli-helpers.ts';
import type { Child } from '../support/node-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';

const APP = 'http://app.test:5173';

describe('plant-store CLI with PLANT_STORE_CORS_ORIGINS', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  it('answers a preflight from a listed origin and puts the CORS headers on a create', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: 'tok',
        PLANT_STORE_CORS_ORIGINS: ` ${APP} , https://x.test, https://*.preview.test`,
      },
      children,
    );
    const [, url] = await child.line(READY, 'the readiness line');
    const preflight = await withDeadline(
      fetch(`${url}/plants`, {
        method: 'OPTIONS',
        headers: { origin: APP, 'access-control-request-method': 'POST' },
      }),
      'a preflight',
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), APP);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
    const created = await withDeadline(
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { origin: APP, authorization: 'Bearer tok', 'content-type': 'application/json' },
        body: '{"id":1,"name":"Fern"}',
      }),
      'a create',
    );
    assert.equal(created.status, 200);
    assert.equal(created.headers.get('access-control-allow-origin'), APP);
    assert.equal(created.headers.get('vary'), 'Origin');
    const elsewhere = await withDeadline(
      fetch(`${url}/plants`, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.test', 'access-control-request-method': 'POST' },
      }),
      'a preflight from another origin',
    );
    assert.equal(elsewhere.status, 405);
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), null);
    for (const [origin, allowed] of [
      ['https://pr-7.preview.test', true],
      ['https://a.b.preview.test', true],
      ['https://preview.test', false],
      ['http://pr-7.preview.test', false],
    ] as const) {
      const answer = await withDeadline(
        fetch(`${url}/plants`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        }),
        `a preflight from ${origin}`,
      );
      assert.equal(answer.status, allowed ? 204 : 405, origin);
      assert.equal(answer.headers.get('access-control-allow-origin'), allowed ? origin : null);
    }
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit'), 0);
  });

  it('exits 2 with one line naming the setting when an origin has a trailing slash', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_CORS_ORIGINS: `${APP}/` }, children);
    const line = await exitsWithOneLine(child, 2, 'a trailing slash');
    assert.match(line, /^plant-store: PLANT_STORE_CORS_ORIGINS: .*http:\/\/app\.test:5173 /);
  });

  it('exits 2 with one line naming the setting when a wildcard is not the first label', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_CORS_ORIGINS: 'https://app.*.test' }, children);
    const line = await exitsWithOneLine(child, 2, 'a wildcard in the middle');
    assert.match(
      line,
      /^plant-store: PLANT_STORE_CORS_ORIGINS: "https:\/\/app\.\*\.test": a wildcard stands only for the leading labels/,
    );
  });
});
