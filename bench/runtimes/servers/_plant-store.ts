/**
 * plant-store as its users get it: `store.fetch` of the built package (`dist/index.js`, what
 * `npm run build` makes and npm ships), with the static token verifier and the in-memory
 * repository. `PLANT_STORE_DIST` points at another build (another revision's `dist/`);
 * `BENCH_KEEP_PLANTS` bounds the store (`newestPlants`).
 *
 * @module
 */

import type * as PlantStore from '../../../lib/index.ts';
import { TOKEN } from '../../servers/_common.ts';
import type { FetchHandler } from './_runtime.ts';

/** The `store.fetch` of the build `PLANT_STORE_DIST` names (this checkout's `dist/` by default). */
export async function plantStoreFetch(): Promise<FetchHandler> {
  const dist = process.env.PLANT_STORE_DIST;
  const entry =
    dist === undefined
      ? new URL('../../../dist/index.js', import.meta.url)
      : new URL(`file://${dist.replace(/\/?$/, '/')}index.js`);
  const lib = (await import(entry.href)) as typeof PlantStore;
  const keep = process.env.BENCH_KEEP_PLANTS;
  const store = lib.createPlantStore({
    repository: keep === undefined ? lib.createMemoryRepository() : newestPlants(Number(keep)),
    verifier: lib.createStaticTokenVerifier([TOKEN]),
  });
  return store.fetch;
}

/**
 * A repository that keeps only the newest `limit` plants, forgetting the oldest: with it a
 * decay run holds a heap of one size, where the memory store grows by millions of plants and
 * the runtime's GC with it. For the bench only; it passes the correctness check, whose ids are
 * all recent.
 */
function newestPlants(limit: number): PlantStore.PlantRepository {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError('bad BENCH_KEEP_PLANTS');
  const plants = new Map<bigint, PlantStore.Plant>();
  // The ids in the order they came, in a ring: the next slot holds the oldest once it is full.
  // (Not the Map's first key: on Bun, finding it past deleted entries grows with each delete.)
  const order: bigint[] = [];
  let next = 0;
  return {
    create(plant) {
      const existing = plants.get(plant.id);
      if (existing !== undefined) return { created: false, existing };
      plants.set(plant.id, plant);
      if (order.length < limit) order.push(plant.id);
      else {
        plants.delete(order[next] as bigint);
        order[next] = plant.id;
        next = (next + 1) % limit;
      }
      return { created: true };
    },
  };
}
