/**
 * The recipe for Hono in `docs/embedding.md`: `hono/jwt` decides who the caller is, and the
 * store's verifier reads its verdict from the Hono context, handed over as
 * `store.fetch(c.req.raw, c)`. The page shows this file as it is (below this comment);
 * `test/readme.test.ts` checks both, and `jwt-recipe.test.ts` runs it.
 *
 * @module
 */

import { type Context, Hono } from 'hono';
import { some } from 'hono/combine';
import { jwt } from 'hono/jwt';
import { createPlantStore, type TokenVerifier } from 'plant-store';

export const verifier: TokenVerifier = {
  verify: (_token, { host }) => {
    const payload: unknown = (host as Context | undefined)?.get('jwtPayload');
    return payload ? { valid: true, principal: payload } : { valid: false };
  },
};
const store = createPlantStore({ verifier, basePath: '/api' });
export const app = new Hono();
// A token hono/jwt refuses goes on without a payload, and the store answers 401 itself.
const secret = process.env.JWT_SECRET ?? '';
app.use(
  '/api/*',
  some(jwt({ secret, alg: 'HS256' }), (_c, next) => next()),
);
app.all('/api/*', (c) => store.fetch(c.req.raw, c));
