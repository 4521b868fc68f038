/**
 * The Express recipe of `docs/embedding.md` (`user-recipe.ts`) in a real Express app over a real
 * socket: the app's middleware decides who the caller is (`req.user`), the store still wants a
 * bearer token, and the user the host decided reaches the repository.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import express, { type Express } from 'express';
import { createRouter } from '../../lib/express.ts';
import { createMemoryRepository, createPlantStore, type PlantRepository } from '../../lib/index.ts';
import { assertHostDecides } from '../support/host-auth-cases.ts';
import { app as recipe, verifier } from './user-recipe.ts';

async function listen(t: TestContext, app: Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the Express req.user recipe', () => {
  it("creates for the middleware's user, and answers 401 to no token and to one it refused", async (t) => {
    const url = await listen(t, recipe);
    await assertHostDecides(`${url}/api`, 'Bearer t0ken-of-ann', 'Bearer t0ken-of-nobody');
  });

  it("hands the repository the host's user as the principal", async (t) => {
    const principals: unknown[] = [];
    const memory = createMemoryRepository();
    const repository: PlantRepository<{ name: string }> = {
      create: (plant, context) => {
        principals.push(context.principal);
        return memory.create(plant, context);
      },
    };
    const app = express();
    app.use((req: express.Request & { user?: { name: string } }, _res, next) => {
      req.user = { name: 'ann' };
      next();
    });
    app.use(createRouter(createPlantStore({ verifier, repository })));
    const url = await listen(t, app);
    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer any-token', 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Fern"}',
    });
    assert.equal(created.status, 200);
    assert.deepEqual(principals, [{ name: 'ann' }]);
  });
});
