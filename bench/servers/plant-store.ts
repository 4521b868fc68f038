/**
 * plant-store's standalone path, as `lib/cli/main.ts` runs it: `createPlantStore` with the static
 * token verifier and the in-memory repository, served by `serve` from `plant-store/node`.
 * `PLANT_STORE_CORS_ORIGINS` turns CORS on as it does for the standalone server (`*` or a comma-
 * separated list); with `BENCH_ORIGIN` set, `plant.lua` sends that `Origin` on every request.
 */
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import { createCors } from '../../lib/cors.ts';
import { serve } from '../../lib/node.ts';
import { announce, benchPort, exitOnSignal, TOKEN } from './_common.ts';

const origins = process.env.PLANT_STORE_CORS_ORIGINS?.split(',').map((origin) => origin.trim());
const store = createPlantStore({
  repository: createMemoryRepository(),
  verifier: createStaticTokenVerifier([TOKEN]),
  cors:
    origins === undefined ? undefined : createCors({ origins: origins[0] === '*' ? '*' : origins }),
});
const handle = await serve({ fetch: store.fetch, port: benchPort(), host: '127.0.0.1' });
announce(handle.port);
exitOnSignal(() => handle.close());
