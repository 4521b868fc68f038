/**
 * `createPlantStore` with a JWT verifier: what a client gets for a valid token, an invalid one,
 * and a JWKS that is down.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { decodeJwt, type JWTPayload } from 'jose';
import { createMemoryRepository, createPlantStore } from '../../lib/index.ts';
import { createJwtVerifier } from '../../lib/jwt.ts';
import {
  AUDIENCE,
  closedPortUrl,
  closeJwksServers,
  ISSUER,
  type JwksServer,
  makeTestKeys,
  now,
  sign,
  startJwksServer,
  type TestKey,
  unsignedToken,
  withDeadline,
} from '../support/jwt-helpers.ts';

let rs256: TestKey;
let es256: TestKey;
let stranger: TestKey;
let jwks: JwksServer;

before(async () => {
  const keys = await makeTestKeys();
  ({ rs256, es256, stranger } = keys);
  jwks = await startJwksServer([rs256.jwk, keys.ps256.jwk, es256.jwk, keys.eddsa.jwk]);
});
after(closeJwksServers);

describe('createPlantStore with createJwtVerifier', () => {
  function storeFor(jwksUrl: string, t: TestContext) {
    const memory = createMemoryRepository();
    const create = t.mock.fn(memory.create.bind(memory));
    const onError = t.mock.fn((_error: unknown) => {});
    const verifier = createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
    const store = createPlantStore({ verifier, repository: { create }, onError });
    return { store, create, onError };
  }

  function createRequest(token: string): Request {
    return new Request('http://x/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id": 7, "name": "Monstera", "tag": "aroid"}',
    });
  }

  it('answers 200 with the plant and hands the claims to the repository when the JWT is valid', async (t) => {
    const { store, create, onError } = storeFor(jwks.url, t);
    const token = await sign(es256, { claims: { sub: 'gardener-7' } });
    const response = await withDeadline(store.handleCreatePlant(createRequest(token)));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { name: 'Monstera', tag: 'aroid' });
    assert.equal(create.mock.callCount(), 1);
    const principal = create.mock.calls[0]?.arguments[1].principal as JWTPayload;
    assert.deepEqual(principal, decodeJwt(token));
    assert.equal(onError.mock.callCount(), 0);
  });

  it('answers 401 with error="invalid_token" and never stores when the JWT is invalid', async (t) => {
    const { store, create, onError } = storeFor(jwks.url, t);
    for (const token of [
      await sign(rs256, { claims: { exp: now() - 120 } }),
      await sign(stranger),
      unsignedToken({ alg: 'none' }, { iss: ISSUER, aud: AUDIENCE, exp: now() + 300 }),
    ]) {
      const response = await withDeadline(store.handleCreatePlant(createRequest(token)));
      assert.equal(response.status, 401);
      assert.equal(
        response.headers.get('www-authenticate'),
        'Bearer realm="plant-store", error="invalid_token"',
      );
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(await response.json(), {
        error: 401,
        message: 'the bearer token is not valid',
      });
    }
    assert.equal(create.mock.callCount(), 0);
    assert.equal(onError.mock.callCount(), 0);
  });

  it('answers 500 internal error, reports it and never stores when the JWKS server is down', async (t) => {
    const { store, create, onError } = storeFor(await closedPortUrl(), t);
    const response = await withDeadline(store.handleCreatePlant(createRequest(await sign(rs256))));
    assert.equal(response.status, 500);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('www-authenticate'), null);
    assert.deepEqual(await response.json(), { error: 500, message: 'internal error' });
    assert.equal(create.mock.callCount(), 0);
    assert.equal(onError.mock.callCount(), 1);
  });

  it('answers 500 internal error when the JWKS server answers 500', async (t) => {
    const server = await startJwksServer([rs256.jwk]);
    server.setMode('error');
    const { store, create, onError } = storeFor(server.url, t);
    const response = await withDeadline(store.handleCreatePlant(createRequest(await sign(rs256))));
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), { error: 500, message: 'internal error' });
    assert.equal(create.mock.callCount(), 0);
    assert.deepEqual(
      (onError.mock.calls[0]?.arguments[0] as { code?: string } | undefined)?.code,
      'ERR_JOSE_GENERIC',
    );
  });
});
