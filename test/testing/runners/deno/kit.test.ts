/// <reference lib="deno.ns" />
/**
 * `plant-store/testing` in a Deno project: the memory repository and the static verifier
 * registered with `Deno.test`, and `checkServer` against a store behind `Deno.serve`.
 *
 * @module
 */

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

registerRepositoryConformance(Deno.test, () => createMemoryRepository());

registerVerifierConformance(Deno.test, () => createStaticTokenVerifier(['s3cr3t']), {
  valid: ['s3cr3t'],
  invalid: ['guess'],
});

Deno.test('checkServer passes every check against a plant store behind Deno.serve', async () => {
  const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, store.fetch);
  try {
    const report = await checkServer({
      baseUrl: `http://127.0.0.1:${server.addr.port}`,
      token: 's3cr3t',
    });
    const failures = report.failed.map(({ error }) => error.message);
    if (failures.length > 0 || report.passed.length !== 35) throw new Error(failures.join('\n'));
  } finally {
    await server.shutdown();
  }
});
