/**
 * A host that gets the order wrong: Hono with `validator('json')` on the route in front of
 * plant-store, which reads the body of `c.req.raw`. The store must answer `500` at once (once
 * this crashed the process) and tell `onError`, once, to mount it before the validator.
 *
 * @module
 */

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { validator } from 'hono/validator';
import { createPlantStore, createStaticTokenVerifier, PlantApiError } from 'plant-store';

const store = createPlantStore({
  verifier: createStaticTokenVerifier([process.env.API_TOKEN ?? '']),
  onError: (error) => {
    const code = error instanceof PlantApiError ? error.code : 'unexpected';
    console.log(`onError ${code}: ${(error as Error).message}`);
  },
});

const app = new Hono();
app.post(
  '/plants',
  validator('json', (value) => value),
  (c) => store.handleCreatePlant(c.req.raw),
);

serve(
  {
    fetch: app.fetch,
    port: Number(process.env.PORT ?? 0),
    hostname: process.env.HOST ?? '127.0.0.1',
  },
  (info) => console.log(`listening on http://${info.address}:${info.port}`),
);
