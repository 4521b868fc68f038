/**
 * The recipe for Fastify in `docs/embedding.md`: `@fastify/jwt` decides who the caller is, and
 * the store's verifier trusts its verdict. The page shows this file as it is (below this
 * comment); `test/readme.test.ts` checks both, and `jwt-recipe.test.ts` runs it.
 *
 * @module
 */

import fastifyJwt from '@fastify/jwt';
import Fastify, { type FastifyRequest } from 'fastify';
import { createPlantStore, type TokenVerifier } from 'plant-store';
import plantStore from 'plant-store/fastify';

// request.user is the host's verdict on the same Authorization header the store reads.
export const verifier: TokenVerifier = {
  verify: (_token, { host }) => {
    const user = (host as FastifyRequest | undefined)?.user;
    return user ? { valid: true, principal: user } : { valid: false };
  },
};
export const app = Fastify();
await app.register(fastifyJwt, { secret: process.env.JWT_SECRET ?? '' });
await app.register(
  async (api) => {
    // A token @fastify/jwt refuses leaves request.user unset, and the store answers 401.
    api.addHook('onRequest', async (request) => {
      await request.jwtVerify().catch(() => undefined);
    });
    await api.register(plantStore, { store: createPlantStore({ verifier }) });
  },
  { prefix: '/api' },
);
