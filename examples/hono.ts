/**
 * plant-store mounted in a Hono app, served on Node by @hono/node-server. The store gets the raw
 * `Request` (`c.req.raw`) and answers with its own `Response`: Hono routes, the store decides.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/hono.ts` (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const app = new Hono();
app.get('/', (c) => c.text('a Hono app with its own routes'));
// No body-parsing middleware on this route: the store reads the body itself.
app.post('/plants', (c) => store.handleCreatePlant(c.req.raw));
app.get('/openapi.json', (c) => store.fetch(c.req.raw));

serve(
  {
    fetch: app.fetch,
    port: Number(process.env.PORT ?? 3000),
    hostname: process.env.HOST ?? '127.0.0.1',
  },
  (info) => console.log(`listening on http://${info.address}:${info.port}`),
);
