/**
 * Where the standalone server says its API is: the "listening" line and the `started` log name
 * the API's URL with its base path, so that what an operator or a script copies from them works.
 * Over the real CLI process.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { postPlant, READY, startCli } from '../support/cli-helpers.ts';
import type { Child } from '../support/node-helpers.ts';

const TOKEN = 'location-token';

describe('plant-store CLI under a base path', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  for (const [title, env, base] of [
    ['PLANT_STORE_BASE_PATH is /api', { PLANT_STORE_BASE_PATH: '/api' }, '/api'],
    [
      "PLANT_STORE_PUBLIC_URL's path is /v1",
      { PLANT_STORE_PUBLIC_URL: 'https://api.example.com/v1' },
      '/v1',
    ],
  ] as const) {
    it(`names the API's URL with its base path in the listening line and the started log when ${title}`, async () => {
      const child = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN, ...env }, children);
      const [line, origin, , path] = await child.line(READY, 'the readiness line');
      const url = `${origin}${base}`;
      assert.equal(line, `plant-store listening on ${url}`);
      assert.equal(path, base);
      const started = child
        .stdout()
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.msg === 'started');
      assert.equal(started?.url, url, child.stdout());
      // What the line names is where the API answers; the root is not.
      const created = await postPlant(url, TOKEN, { id: 1, name: 'Monstera' });
      assert.equal(created.status, 200);
      assert.deepEqual(await created.json(), { name: 'Monstera' });
      assert.equal((await postPlant(origin as string, TOKEN, { id: 1, name: 'M' })).status, 404);
    });
  }
});
