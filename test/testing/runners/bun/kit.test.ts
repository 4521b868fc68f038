/**
 * `plant-store/testing` in a `bun test` project: the memory repository and the static verifier
 * registered through the kit, and `checkServer` against a store behind `Bun.serve`.
 *
 * @module
 */

import { expect, test } from 'bun:test';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../../../lib/index.ts';
import {
  checkServer,
  registerRepositoryConformance,
  registerVerifierConformance,
} from '../../../../lib/testing.ts';

registerRepositoryConformance(test, () => createMemoryRepository());

registerVerifierConformance(test, () => createStaticTokenVerifier(['s3cr3t']), {
  valid: ['s3cr3t'],
  invalid: ['guess'],
});

test('checkServer passes every check against a plant store behind Bun.serve', async () => {
  const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: store.fetch });
  try {
    const report = await checkServer({
      baseUrl: `http://127.0.0.1:${server.port}`,
      token: 's3cr3t',
    });
    expect(report.failed.map(({ error }) => error.message)).toEqual([]);
    expect(report.passed.length).toBe(35);
  } finally {
    await server.stop(true);
  }
}, 30_000);
