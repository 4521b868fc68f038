/**
 * plant-store mounted in an Express 5 app with `plant-store/express`: `createRouter(store)` is
 * a `Router` serving the API under its mount path, mounted before the app's body parsers.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/express.ts` (PORT, default 3000; HOST, default 127.0.0.1),
 * then `POST /api/plants`; the reference is at `/api/docs`.
 *
 * @module
 */

import type { AddressInfo } from 'node:net';
import express from 'express';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import { createRouter } from 'plant-store/express';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const app = express();
// Before any body parser: the store reads the raw body itself, with its size limit, strict
// UTF-8 and exact int64 ids.
app.use('/api', createRouter(store, { docs: true }));
app.use(express.json());
app.get('/', (_req, res) => {
  res.send('an Express app with its own routes');
});

const server = app.listen(
  Number(process.env.PORT ?? 3000),
  process.env.HOST ?? '127.0.0.1',
  (error) => {
    if (error) throw error;
    const { address, port } = server.address() as AddressInfo;
    console.log(`listening on http://${address}:${port}/api`);
  },
);
