/**
 * plant-store as a Cloudflare Worker: `store.fetch` is the Worker's `fetch` as it is. The token
 * is the Worker's `API_TOKEN` secret (`wrangler secret put API_TOKEN`). Plants are kept in
 * memory, per isolate: for anything but a demo, hand the store a repository over storage that
 * outlives the isolate.
 *
 * `wrangler dev examples/cloudflare-worker.ts` (or `workerd serve` with a config naming it).
 *
 * @module
 */

import { env } from 'cloudflare:workers';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

const store = createPlantStore({ verifier: createStaticTokenVerifier([env.API_TOKEN]) });

export default { fetch: store.fetch };
