/**
 * The `hono/jwt` recipe of `docs/embedding.md` (`jwt-recipe.ts`) in a real Hono app on
 * `@hono/node-server`, over a real socket: the host decides who the caller is through the Hono
 * context, the store still wants a bearer token, and the payload the host decided reaches the
 * repository.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { some } from 'hono/combine';
import { jwt } from 'hono/jwt';
import { createMemoryRepository, createPlantStore, type PlantRepository } from '../../lib/index.ts';
import { assertHostDecides, JWT_SECRET, tokenFor } from '../support/host-auth-cases.ts';

process.env.JWT_SECRET = JWT_SECRET;
const recipe = await import('./jwt-recipe.ts');

async function listen(t: TestContext, app: Hono): Promise<string> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the hono/jwt recipe', () => {
  it('creates for the caller hono/jwt accepted, and answers 401 to no token and to one it refused', async (t) => {
    const url = await listen(t, recipe.app);
    await assertHostDecides(
      `${url}/api`,
      `Bearer ${await tokenFor('ann')}`,
      `Bearer ${await tokenFor('ann', 'another-secret-than-the-host-s')}`,
    );
  });

  it("hands the repository the host's payload as the principal", async (t) => {
    const principals: unknown[] = [];
    const memory = createMemoryRepository();
    const repository: PlantRepository = {
      create: (plant, context) => {
        principals.push(context.principal);
        return memory.create(plant, context);
      },
    };
    const store = createPlantStore({ verifier: recipe.verifier, repository });
    const app = new Hono();
    app.use(some(jwt({ secret: JWT_SECRET, alg: 'HS256' }), (_c, next) => next()));
    app.all('*', (c) => store.fetch(c.req.raw, c));
    const url = await listen(t, app);
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
