/**
 * plant-store mounted in a Hono app under `/api`, served on Node by @hono/node-server. The
 * store knows its prefix (`basePath`) and gets the request unchanged (`replaceRequest: false`),
 * so its routes and its OpenAPI document agree with the URL clients use.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/hono.ts` (PORT, default 3000; HOST, default 127.0.0.1),
 * then `POST /api/plants`.
 *
 * @module
 */

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]), basePath: '/api' });

const app = new Hono();
app.get('/', (c) => c.text('a Hono app with its own routes'));
// No body-parsing middleware in front of the store: it reads the body itself.
app.mount('/api', store.fetch, { replaceRequest: false });

serve(
  {
    fetch: app.fetch,
    port: Number(process.env.PORT ?? 3000),
    hostname: process.env.HOST ?? '127.0.0.1',
  },
  (info) => console.log(`listening on http://${info.address}:${info.port}/api`),
);
