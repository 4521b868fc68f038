/**
 * Elysia 1.4 on Bun, written as its guides write it: a `t.Object` body schema, the bearer check
 * in `beforeHandle`, the media type in `transform`, the size limit as Bun's own
 * `maxRequestBodySize` (Bun answers `413`), `status(...)` for every refusal and `onError` for
 * Elysia's own. Elysia reads and parses the body before the hooks run, so the bearer check comes
 * after the body here. The body is parsed by Elysia (`JSON.parse`) and `t.Integer` takes a
 * double: ids past 2^53 are not kept exact, as its users get them.
 *
 * @module
 */

import { Elysia, t } from 'elysia';
import {
  announce,
  type BenchPlant,
  benchPort,
  isAuthorized,
  isJson,
  MAX_BODY_BYTES,
  storePlant,
} from '../../servers/_common.ts';

const plants = new Map<number, BenchPlant>();

const app = new Elysia({ serve: { maxRequestBodySize: MAX_BODY_BYTES } })
  .onError(({ code, error, status }) => {
    if (code === 'NOT_FOUND') return status(404, { error: 404, message: 'not found' });
    if (code === 'VALIDATION' || code === 'PARSE') {
      return status(400, { error: 400, message: error.message.slice(0, 200) });
    }
    return undefined; // a thrown status(...) answers as it is
  })
  .post(
    '/plants',
    ({ body: { id, name, tag }, status }) => {
      const plant: BenchPlant = tag === undefined ? { name } : { name, tag };
      if (!storePlant(plants, id, plant)) {
        return status(409, { error: 409, message: 'id already exists' });
      }
      return plant;
    },
    {
      // After Elysia parsed the body by its media type, before the schema judges it.
      transform({ headers, status }) {
        if (!isJson(headers['content-type'])) {
          throw status(415, { error: 415, message: 'unsupported media type' });
        }
      },
      beforeHandle({ headers, set, status }) {
        if (!isAuthorized(headers.authorization)) {
          set.headers['www-authenticate'] = 'Bearer realm="plant-store"';
          return status(401, { error: 401, message: 'a bearer token is required' });
        }
        return undefined;
      },
      body: t.Object({ id: t.Integer(), name: t.String(), tag: t.Optional(t.String()) }),
    },
  )
  .all('/plants', ({ set, status }) => {
    set.headers.allow = 'POST';
    return status(405, { error: 405, message: 'method not allowed' });
  })
  .listen({ hostname: '127.0.0.1', port: benchPort() });

announce(app.server?.port ?? 0);
