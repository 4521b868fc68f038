/**
 * plant-store mounted in a Fastify 5 app with `plant-store/fastify`: a plugin that owns its
 * routes under its prefix, in a scope whose own body parser hands the raw body to the store,
 * whatever parsers the app registered.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/fastify.ts` (PORT, default 3000; HOST, default 127.0.0.1),
 * then `POST /api/plants`; the reference is at `/api/docs`.
 *
 * @module
 */

import Fastify from 'fastify';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import plantStore from 'plant-store/fastify';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const app = Fastify();
app.get('/', async () => 'a Fastify app with its own routes');
app.register(plantStore, { store, prefix: '/api', docs: true });

const url = await app.listen({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
});
console.log(`listening on ${url}/api`);
