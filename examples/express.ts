/**
 * plant-store mounted in an Express 5 app: `toNodeListener` (from `plant-store/node`) turns the
 * store's web handler into a route handler for Express's `req`/`res`.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/express.ts` (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import type { AddressInfo } from 'node:net';
import express from 'express';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import { toNodeListener } from 'plant-store/node';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const app = express();
app.get('/', (_req, res) => {
  res.send('an Express app with its own routes');
});
// Mount it before any body parser (express.json()): the store reads the raw body itself, with
// its size limit, strict UTF-8 and exact int64 ids.
app.post('/plants', toNodeListener(store.handleCreatePlant));
app.get('/openapi.json', toNodeListener(store.fetch));

const server = app.listen(
  Number(process.env.PORT ?? 3000),
  process.env.HOST ?? '127.0.0.1',
  (error) => {
    if (error) throw error;
    const { address, port } = server.address() as AddressInfo;
    console.log(`listening on http://${address}:${port}`);
  },
);
