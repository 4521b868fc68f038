/**
 * plant-store as its users get it: `store.fetch` of the built package (`dist/index.js`, what
 * `npm run build` makes and npm ships), with the static token verifier and the in-memory
 * repository.
 *
 * @module
 */

import type * as PlantStore from '../../../lib/index.ts';
import { TOKEN } from '../../servers/_common.ts';
import type { FetchHandler } from './_runtime.ts';

/** The `store.fetch` of this checkout's build. */
export async function plantStoreFetch(): Promise<FetchHandler> {
  const entry = new URL('../../../dist/index.js', import.meta.url);
  const lib = (await import(entry.href)) as typeof PlantStore;
  const store = lib.createPlantStore({
    repository: lib.createMemoryRepository(),
    verifier: lib.createStaticTokenVerifier([TOKEN]),
  });
  return store.fetch;
}
