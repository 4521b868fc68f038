/**
 * plant-store as a Cloudflare Worker: `store.fetch` is the Worker's `fetch` as it is. The token
 * is the Worker's `API_TOKEN` secret. Plants are kept in memory, per isolate: for anything but a
 * demo, hand the store a repository over storage that outlives the isolate.
 *
 * The Workers guide (docs/workers.md) shows this file and the `wrangler.jsonc` beside it, which
 * CI runs with `wrangler dev` and checks with `plant-store conform`.
 *
 * @module
 */

import { env } from 'cloudflare:workers';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

const store = createPlantStore({ verifier: createStaticTokenVerifier([env.API_TOKEN]) });
export default { fetch: store.fetch };
