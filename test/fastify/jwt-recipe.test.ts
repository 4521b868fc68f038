/**
 * The `@fastify/jwt` recipe of `docs/embedding.md` (`jwt-recipe.ts`) in a real Fastify app over
 * a real socket: the host decides who the caller is, the store still wants a bearer token, and
 * the principal the host decided reaches the repository.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fastifyJwt from '@fastify/jwt';
import Fastify from 'fastify';
import plantStore from '../../lib/fastify.ts';
import { createMemoryRepository, createPlantStore, type PlantRepository } from '../../lib/index.ts';
import { assertHostDecides, JWT_SECRET, tokenFor } from '../support/host-auth-cases.ts';

process.env.JWT_SECRET = JWT_SECRET;
const recipe = await import('./jwt-recipe.ts');
after(() => recipe.app.close());

describe('the @fastify/jwt recipe', () => {
  it('creates for the caller @fastify/jwt accepted, and answers 401 to no token and to one it refused', async () => {
    const url = await recipe.app.listen({ port: 0, host: '127.0.0.1' });
    await assertHostDecides(
      `${url}/api`,
      `Bearer ${await tokenFor('ann')}`,
      `Bearer ${await tokenFor('ann', 'another-secret-than-the-host-s')}`,
    );
  });

  it("hands the repository the host's user as the principal", async (t) => {
    const principals: unknown[] = [];
    const memory = createMemoryRepository();
    const repository: PlantRepository = {
      create: (plant, context) => {
        principals.push(context.principal);
        return memory.create(plant, context);
      },
    };
    const app = Fastify();
    t.after(() => app.close());
    await app.register(fastifyJwt, { secret: JWT_SECRET });
    app.addHook('onRequest', async (request) => {
      await request.jwtVerify().catch(() => undefined);
    });
    await app.register(plantStore, {
      store: createPlantStore({ verifier: recipe.verifier, repository }),
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokenFor('ann')}`,
        'content-type': 'application/json',
      },
      body: '{"id": 1, "name": "Fern"}',
    });
    assert.equal(created.status, 200);
    assert.equal((principals[0] as { sub?: string }).sub, 'ann');
  });
});
