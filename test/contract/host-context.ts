/**
 * What a store hands its collaborators and `onError` of the request as the host has it: the
 * request's method, URL and headers (never its body), and whatever the host passed beside it,
 * so that a host that already knows who the caller is need not verify the token again.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { PlantRepositoryContext, TokenVerifierContext } from '../../lib/index.ts';
import { plantRequest, TOKEN } from '../support/web-fakes.ts';
import { defineCases, json } from './context.ts';

/** The cases of the host's context. */
export const hostContextCases = defineCases('createPlantStore: the host’s context', (it) => {
  it('hands the verifier and the repository the request head, read-only and without a body', async (t) => {
    const seen: Array<TokenVerifierContext | PlantRepositoryContext> = [];
    const { store } = t.testStore({
      verifier: {
        verify(token, context) {
          seen.push(context);
          return { valid: token === TOKEN };
        },
      },
      repository: {
        create(_plant, context) {
          seen.push(context);
          return { created: true };
        },
      },
    });
    const response = await t.send(
      store.fetch,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-tenant': 'north' }),
    );
    assert.equal(response.status, 200);
    assert.equal(seen.length, 2);
    for (const context of seen) {
      const request = context.request;
      assert.equal(request?.method, 'POST');
      assert.equal(new URL(request?.url ?? '').pathname, '/plants');
      assert.equal(request?.headers.get('x-tenant'), 'north');
      assert.equal(request?.headers.get('authorization'), `Bearer ${TOKEN}`);
      assert.equal('body' in (request ?? {}), false, 'no way to the body');
    }
  });

  it(
    'hands the verifier, the repository and onError what the host passed beside the request',
    async (t) => {
      const host = { user: { id: 'u-1' }, log: { error() {} } };
      const seen: unknown[] = [];
      const { store, onError } = t.testStore({
        verifier: {
          // A host that authenticated the caller itself: the verifier trusts its verdict.
          verify: (_token, context) => {
            const user = (context.host as typeof host | undefined)?.user;
            return user === undefined ? { valid: false } : { valid: true, principal: user };
          },
        },
        repository: {
          create(_plant, context) {
            seen.push(context.host, context.principal);
            throw new Error('disk full');
          },
        },
      });
      const request = plantRequest(json({ id: 1, name: 'a' }));
      assert.equal((await store.fetch(request.clone(), host)).status, 500);
      assert.deepEqual(seen, [host, host.user]);
      assert.equal(onError.calls[0]?.[1] && (onError.calls[0][1] as { host?: unknown }).host, host);
      assert.equal((await store.handleCreatePlant(request.clone(), host)).status, 500);
      assert.equal((await store.fetch(request)).status, 401, 'no host, no caller');
    },
    'passes its own object beside the request, which only an in-process call can',
  );

  it(
    "logs a fault through the host request's own logger when the store has no onError",
    async (t) => {
      const logged: unknown[] = [];
      const store = t.lib.createPlantStore({
        verifier: t.lib.createStaticTokenVerifier([TOKEN]),
        repository: { create: () => Promise.reject(new Error('disk full')) },
      });
      const host = { log: { error: (...args: unknown[]) => logged.push(args) } };
      const response = await store.fetch(plantRequest(json({ id: 1, name: 'a' })), host);
      assert.equal(response.status, 500);
      assert.equal(logged.length, 1);
      const [fields, message] = logged[0] as [{ err: Error }, string];
      assert.equal(fields.err.message, 'disk full');
      assert.equal(message, 'plant-store: a create failed');
    },
    'passes its own object beside the request, which only an in-process call can',
  );

  it('answers 404 naming its base path when a route comes without it (a host took the prefix off)', async (t) => {
    const { store, onError } = t.testStore({ basePath: '/api' });
    for (const path of ['/plants', '/openapi.json']) {
      const response = await t.send(
        store.fetch,
        new Request(`http://localhost${path}`, { method: 'POST' }),
        'NotFound',
      );
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, {
        error: 404,
        message: "not found: this store's routes are under /api",
      });
    }
    // Any other path is plainly not found, and no client reaches the operator's log this way.
    const other = await t.send(store.fetch, new Request('http://localhost/elsewhere'), 'NotFound');
    assert.deepEqual(other.body, { error: 404, message: 'not found' });
    assert.equal(onError.calls.length, 0);
  });
});
