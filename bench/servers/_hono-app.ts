/**
 * The plant workload as a Hono 4 app, written with Hono's own middleware: `bearerAuth`, a
 * `Content-Type` guard (`415`), `bodyLimit` (`413`) and `validator('json')`. Served on Deno
 * (`runtimes/servers/deno-hono.ts`) and called in process by `bench/direct.ts` (`app.request`).
 */
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { validator } from 'hono/validator';
import {
  type BenchPlant,
  errorBody,
  isJson,
  MAX_BODY_BYTES,
  readPlant,
  storePlant,
  TOKEN,
} from './_common.ts';

function errorJson(status: 400 | 401 | 404 | 409 | 413 | 415 | 500, message: string): Response {
  return new Response(errorBody(status, message), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** A fresh Hono app with its own in-memory store. */
export function createHonoApp(): Hono {
  const plants = new Map<number, BenchPlant>();
  const app = new Hono();
  app.post(
    '/plants',
    bearerAuth({ token: TOKEN, realm: 'plant-store' }),
    async (c, next) => {
      if (!isJson(c.req.header('content-type'))) return errorJson(415, 'unsupported media type');
      await next();
    },
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => errorJson(413, 'request body too large'),
    }),
    validator('json', (value) => {
      const parsed = readPlant(value);
      if (typeof parsed === 'string') throw new HTTPException(400, { message: parsed });
      return parsed;
    }),
    (c) => {
      const { id, plant } = c.req.valid('json');
      if (!storePlant(plants, id, plant)) return errorJson(409, 'id already exists');
      return c.json(plant);
    },
  );
  app.notFound(() => errorJson(404, 'not found'));
  app.onError((error) => {
    if (error instanceof HTTPException) {
      // bearerAuth's 401 keeps its WWW-Authenticate header.
      if (error.status === 401) return error.getResponse();
      return errorJson(error.status as 400, error.message);
    }
    return errorJson(500, 'internal error');
  });
  return app;
}
