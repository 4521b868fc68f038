/**
 * Step 2 of the behaviour table, authentication: the `Authorization` header's syntax, the
 * verifier's verdict, and that a request refused here never has its body read.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { PlantRepositoryContext } from '../../lib/index.ts';
import { countingStream, plantRequest, spy, TOKEN } from '../support/web-fakes.ts';
import { defineCases, encoder, json, WATCHES_STREAM } from './context.ts';

/** The cases of step 2, authentication. */
export const authenticationCases = defineCases('handleCreatePlant: 2. authentication', (it) => {
  const realm = 'Bearer realm="plant-store"';
  const malformed = {
    missing: undefined,
    'another scheme': `Basic ${TOKEN}`,
    'no token': 'Bearer',
    'no space': `Bearer${TOKEN}`,
    'two tokens': `Bearer ${TOKEN} ${TOKEN}`,
    'a token outside b64token': 'Bearer tök',
    'padding inside the token': 'Bearer ab=cd',
    'a comma': `Bearer ${TOKEN},`,
    'a tab for the space': `Bearer\t${TOKEN}`,
  };
  for (const [name, authorization] of Object.entries(malformed)) {
    it(`answers 401 with the bare challenge when the header has ${name}`, async (t) => {
      const repository = t.recordingRepository();
      const verify = spy(() => ({ valid: true as const }));
      const guarded = t.lib.createPlantStore({ verifier: { verify }, repository });
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers.authorization = authorization;
      const request = new Request('http://localhost/plants', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: json({ id: 1, name: 'a' }),
      });
      const response = await t.send(guarded.handleCreatePlant, request);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), realm);
      assert.deepEqual(response.body, { error: 401, message: 'a bearer token is required' });
      assert.equal(verify.calls.length, 0, 'a malformed header never reaches the verifier');
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('accepts the scheme in any case and with several spaces', async (t) => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER   ${TOKEN}`, `bEaReR ${TOKEN}`]) {
      const { store } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { authorization }),
      );
      assert.equal(response.status, 200, authorization);
    }
  });

  it('answers 401 with error="invalid_token" when the verifier rejects a well-formed token', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { authorization: 'Bearer wrong-token' }),
    );
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), `${realm}, error="invalid_token"`);
    assert.deepEqual(response.body, { error: 401, message: 'the bearer token is not valid' });
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'never reads the body when the token is missing or rejected',
    async (t) => {
      for (const authorization of [undefined, 'Bearer wrong-token', 'Basic abc']) {
        const { store, repository } = t.testStore();
        const { stream, state } = countingStream([encoder.encode(json({ id: 1, name: 'a' }))]);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization) headers.authorization = authorization;
        const request = new Request('http://localhost/plants', {
          method: 'POST',
          headers,
          body: stream,
          duplex: 'half',
        } as RequestInit);
        const response = await t.send(store.handleCreatePlant, request);
        assert.equal(response.status, 401);
        assert.equal(state.pulled, 0, 'no byte of the body was pulled');
        assert.equal(request.bodyUsed, false);
        assert.equal(repository.create.calls.length, 0);
      }
    },
    WATCHES_STREAM,
  );

  it('answers 401 before looking at the body, even when the body is also wrong', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(null, { authorization: 'Bearer nope', 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 401);
  });

  it('passes the token and a signal to the verifier', async (t) => {
    const verify = spy((_token: string, _context: { signal: AbortSignal }) => ({
      valid: true as const,
    }));
    const store = t.lib.createPlantStore({ verifier: { verify } });
    await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const [token, context] = verify.calls[0] ?? [];
    assert.equal(token, TOKEN);
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('accepts an async verifier and hands its principal to the repository', async (t) => {
    const repository = t.recordingRepository();
    const principal = { sub: 'gardener-7' };
    const store = t.lib.createPlantStore({
      repository,
      verifier: { verify: async () => ({ valid: true, principal }) },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 200);
    const context = repository.create.calls[0]?.[1] as PlantRepositoryContext;
    assert.equal(context.principal, principal);
  });

  it('answers 500 and reports ERR_MALFORMED_VERDICT when a verdict is not of the documented shape', async (t) => {
    // A verifier that answers `true`, nothing, or `{ valid: 'yes' }` is a bug in the host's code:
    // it is never let through, and onError names the collaborator and the shape it must answer.
    for (const verdict of [undefined, null, true, 'valid', { valid: 'yes' }, {}]) {
      const { store, repository, onError } = t.testStore({
        verifier: { verify: () => verdict as never },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500, json(verdict));
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(repository.create.calls.length, 0);
      assert.equal(onError.calls.length, 1);
      const error = onError.calls[0]?.[0] as { code?: string; message?: string };
      assert.equal(error.code, 'ERR_MALFORMED_VERDICT');
      assert.match(String(error.message), /TokenVerifier\.verify/);
      assert.match(
        String(error.message),
        /\{ valid: true(, principal\?)? \} or \{ valid: false(, reason\?)? \}/,
      );
    }
  });

  it('answers 500 and reports the error when the verifier throws, never letting the request through', async (t) => {
    for (const verify of [
      () => {
        throw new Error('key server down at 10.0.0.7');
      },
      () => Promise.reject(new Error('key server down at 10.0.0.7')),
    ]) {
      const { store, repository, onError } = t.testStore({ verifier: { verify } });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.calls.length, 1);
      assert.match(String(onError.calls[0]?.[0]), /key server down/);
      assert.equal(repository.create.calls.length, 0);
    }
  });
});
