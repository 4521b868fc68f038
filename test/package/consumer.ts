/**
 * A consumer of every public entry, compiled against the built declarations by the oldest
 * TypeScript plant-store supports (`npm run check:package`). It also pins what the types
 * promise: a verifier's principal reaches the repository typed, a string in place of a token
 * list does not compile, and `node:test`'s `test` fits the kit's register helpers.
 *
 * @module
 */

import { createServer } from 'node:http';
import { test } from 'node:test';
import {
  createPlantStore,
  createStaticTokenVerifier,
  type PlantRepository,
  type TokenVerifier,
} from 'plant-store';
import { createJwtVerifier, DEFAULT_JWT_ALGORITHMS } from 'plant-store/jwt';
import { serve, toNodeListener } from 'plant-store/node';
import { PlantStoreInstrumentation } from 'plant-store/otel';
import { createPostgresRepository } from 'plant-store/postgres';
import {
  checkServer,
  type ConformanceReport,
  registerRepositoryConformance,
  registerVerifierConformance,
  runRepositoryConformance,
} from 'plant-store/testing';

interface Gardener {
  readonly id: string;
}

const gardeners: TokenVerifier<Gardener> = {
  verify: (token) =>
    token === 't0ken' ? { valid: true, principal: { id: 'g-7' } } : { valid: false },
};
const byGardener: PlantRepository<Gardener> = {
  create(plant, { principal }) {
    const owner: string | undefined = principal?.id;
    return owner === undefined || plant.name === '' ? { created: true } : { created: true };
  },
};
const store = createPlantStore({ verifier: gardeners, repository: byGardener });

const jwtStore = createPlantStore({
  verifier: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'plant-store',
    algorithms: [...DEFAULT_JWT_ALGORITHMS, 'ES384'],
  }),
  repository: {
    create(_plant, { principal }) {
      const subject: string | undefined = principal?.sub;
      return subject === undefined ? { created: true } : { created: true };
    },
  },
});

// @ts-expect-error -- one string in place of a list would accept each of its characters
createStaticTokenVerifier('s3cr3t');
// @ts-expect-error -- an algorithm name outside the allowlist's union
createJwtVerifier({ key: new Uint8Array(32), issuer: 'i', audience: 'a', algorithms: ['none'] });

export const servers = [
  createServer(toNodeListener(store.fetch)),
  serve({ fetch: jwtStore.fetch, port: 0 }),
  // Any driver with query(text, values) fits, pg's Pool among them.
  createPostgresRepository({ query: async () => ({ rows: [] }) }),
];

registerRepositoryConformance(test, () => byGardener, { rejectsWithSignalReason: false });
registerVerifierConformance(test, () => gardeners, { valid: ['t0ken'], invalid: ['guess'] });
export const reports: Array<Promise<ConformanceReport>> = [
  runRepositoryConformance(() => ({ repository: byGardener, cleanup: async () => {} })),
  checkServer({ baseUrl: 'http://127.0.0.1:3000', token: 't0ken', onResult: ({ error }) => error }),
];

// A host's OpenTelemetry: the instrumentation is OpenTelemetry's own kind, so it fits its API.
export const instrumentation = new PlantStoreInstrumentation({ enabled: false });
instrumentation.enable();
