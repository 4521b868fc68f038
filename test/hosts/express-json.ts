/**
 * A host that gets the order wrong: Express 5 with `express.json()` in front of plant-store's
 * router. The body is gone before the store sees it; the store must answer `500` at once and
 * tell `onError`, once, to mount it before the parser (`test/runtimes/examples.ts` checks both).
 *
 * @module
 */

import type { AddressInfo } from 'node:net';
import express from 'express';
import { createPlantStore, createStaticTokenVerifier, PlantApiError } from 'plant-store';
import { createRouter } from 'plant-store/express';

const store = createPlantStore({
  verifier: createStaticTokenVerifier([process.env.API_TOKEN ?? '']),
  onError: (error) => {
    const code = error instanceof PlantApiError ? error.code : 'unexpected';
    console.log(`onError ${code}: ${(error as Error).message}`);
  },
});

const app = express();
app.use(express.json());
app.use(createRouter(store));

const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`listening on http://${address}:${port}`);
});
