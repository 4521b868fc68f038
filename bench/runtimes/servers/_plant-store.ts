/**
 * plant-store as its users get it: `store.fetch` of the built package (`dist/index.js`, what
 * `npm run build` makes and npm ships), with the static token verifier and the in-memory
 * repository. `PLANT_STORE_DIST` points at another build (another revision's `dist/`).
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
  const store = lib.createPlantStore({
    repository: lib.createMemoryRepository(),
    verifier: lib.createStaticTokenVerifier([TOKEN]),
  });
  return store.fetch;
}
