/**
 * A host that gets the order wrong: Fastify 5 with its JSON body parser left on for the route
 * that hands the raw request to plant-store. The store must answer `500` at once and tell
 * `onError`, once, to mount it in a scope without a parser (`test/runtimes/examples.ts`).
 *
 * @module
 */

import Fastify from 'fastify';
import { createPlantStore, createStaticTokenVerifier, PlantApiError } from 'plant-store';
import { toNodeListener } from 'plant-store/node';

const store = createPlantStore({
  verifier: createStaticTokenVerifier([process.env.API_TOKEN ?? '']),
  onError: (error) => {
    const code = error instanceof PlantApiError ? error.code : 'unexpected';
    console.log(`onError ${code}: ${(error as Error).message}`);
  },
});
const listener = toNodeListener(store.handleCreatePlant);

const app = Fastify();
app.post('/plants', (request, reply) => {
  reply.hijack();
  listener(request.raw, reply.raw);
});

const url = await app.listen({
  port: Number(process.env.PORT ?? 0),
  host: process.env.HOST ?? '127.0.0.1',
});
console.log(`listening on ${url}`);
