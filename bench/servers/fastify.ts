/**
 * The plant workload on Fastify 5, as Fastify's docs would write it: a JSON Schema for the body
 * (validated by Ajv) and for the response (serialized by fast-json-stringify), the bearer check
 * in an `onRequest` hook (before the body is read), `bodyLimit` for 100 KiB, and Fastify's own
 * JSON parser (`415` for any other content type, once the built-in text/plain parser is removed).
 * With `BENCH_FASTIFY_LOGGER=1` it logs as `Fastify({ logger: true })` does: pino's JSON lines on
 * stdout, two per request. With `DATABASE_URL` it stores in PostgreSQL (`_plants.ts`).
 */
import Fastify from 'fastify';
import {
  announce,
  type BenchPlant,
  benchPort,
  errorBody,
  isAuthorized,
  MAX_BODY_BYTES,
} from './_common.ts';
import { openPlants } from './_plants.ts';

interface NewPlantBody {
  id: number;
  name: string;
  tag?: string;
}

const save = await openPlants();
const app = Fastify({
  logger: process.env.BENCH_FASTIFY_LOGGER === '1',
  bodyLimit: MAX_BODY_BYTES,
});
// A JSON-only API: without Fastify's built-in text/plain parser, anything but JSON is a 415.
app.removeContentTypeParser('text/plain');

app.addHook('onRequest', async (request, reply) => {
  if (!isAuthorized(request.headers.authorization)) {
    reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="plant-store"')
      .type('application/json')
      .send(errorBody(401, 'a bearer token is required'));
  }
});

app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
  const status = error.statusCode ?? 500;
  reply.code(status).type('application/json').send(errorBody(status, error.message));
});

app.post<{ Body: NewPlantBody }>(
  '/plants',
  {
    schema: {
      body: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          tag: { type: 'string' },
        },
      },
      response: {
        200: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, tag: { type: 'string' } },
        },
      },
    },
  },
  async (request, reply) => {
    const { id, name, tag } = request.body;
    const plant: BenchPlant = tag === undefined ? { name } : { name, tag };
    if (!(await save(id, plant))) {
      return reply.code(409).type('application/json').send(errorBody(409, 'id already exists'));
    }
    return plant;
  },
);

await app.listen({ port: benchPort(), host: '127.0.0.1' });
const address = app.server.address();
announce(typeof address === 'object' && address !== null ? address.port : 0);
