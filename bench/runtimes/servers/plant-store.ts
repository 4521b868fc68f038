/**
 * plant-store on Bun and on Deno as its users get it: `store.fetch` of the built package
 * (`dist/index.js`, what `npm run build` makes and npm ships) on the runtime's own server, with
 * the static token verifier and the in-memory repository.
 *
 * @module
 */

import type * as PlantStore from '../../../lib/index.ts';
import { TOKEN } from '../../servers/_common.ts';
import { serveHere } from './_runtime.ts';

const entry = new URL('../../../dist/index.js', import.meta.url);
const lib = (await import(entry.href)) as typeof PlantStore;
const store = lib.createPlantStore({
  repository: lib.createMemoryRepository(),
  verifier: lib.createStaticTokenVerifier([TOKEN]),
});
serveHere(store.fetch);
