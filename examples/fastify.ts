/**
 * plant-store mounted in a Fastify 5 app. In its own plugin scope Fastify is told to leave the
 * body unparsed, and the route hands the raw Node request and response to `toNodeListener`
 * (from `plant-store/node`) after `reply.hijack()`, so Fastify does not answer a second time.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/fastify.ts` (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import Fastify from 'fastify';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import { toNodeListener } from 'plant-store/node';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });
const listener = toNodeListener(store.handleCreatePlant);

const app = Fastify();
app.get('/', async () => 'a Fastify app with its own routes');
app.register(async (scope) => {
  // Only in this scope: take any content type and read nothing, so the store gets the raw
  // body stream and checks media type, size and JSON itself.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
  scope.post('/plants', (request, reply) => {
    reply.hijack();
    listener(request.raw, reply.raw);
  });
});

const url = await app.listen({
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
});
console.log(`listening on ${url}`);
