/**
 * plant-store embedded in a Node host: `createPlantStore` with the static token verifier and the
 * in-memory repository, served by `serve` from `plant-store/node`.
 */
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import { serve } from '../../lib/node.ts';
import { announce, benchPort, TOKEN } from './_common.ts';

const store = createPlantStore({
  repository: createMemoryRepository(),
  verifier: createStaticTokenVerifier([TOKEN]),
});
const handle = await serve({ fetch: store.fetch, port: benchPort(), host: '127.0.0.1' });
announce(handle.port);
