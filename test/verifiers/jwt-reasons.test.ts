/**
 * Why the JWT verifier refuses a token: each refusal's `reason`, as `onTokenRejected` and the
 * diagnostics channel hear it, while the client still gets the contract's bare `401`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, mock } from 'node:test';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { createPlantStore, type TokenRejectionReason } from '../../lib/index.ts';
import { createJwtVerifier } from '../../lib/jwt.ts';

const ISSUER = 'https://id.example.test/';
const AUDIENCE = 'plant-store';
const now = () => Math.floor(Date.now() / 1000);

interface Key {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function makeKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

function sign(key: Key, claims: JWTPayload = {}, kid = key.kid): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid })
    .sign(key.privateKey);
}

describe('createJwtVerifier refusal reasons', () => {
  let trusted: Key;
  let stranger: Key;
  let jwksUrl: string;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [trusted.jwk] }));
  });

  before(async () => {
    [trusted, stranger] = await Promise.all([makeKey('trusted'), makeKey('trusted')]);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  after(() => server.close());

  const cases: Array<[TokenRejectionReason, string, () => Promise<string>]> = [
    ['expired', 'its exp has passed', () => sign(trusted, { exp: now() - 600 })],
    ['not_yet_valid', 'its nbf is to come', () => sign(trusted, { nbf: now() + 600 })],
    ['wrong_issuer', 'another issuer signed it', () => sign(trusted, { iss: 'https://evil/' })],
    ['wrong_audience', 'it is for another audience', () => sign(trusted, { aud: 'other' })],
    ['bad_signature', 'another key signed it under a known kid', () => sign(stranger)],
    ['unknown_key', 'its kid is not in the JWKS', () => sign(trusted, {}, 'unknown-kid')],
    ['malformed', 'it is not a JWT', async () => 'not.a.jwt'],
  ];

  for (const [reason, condition, makeToken] of cases) {
    it(`refuses with the reason ${reason} when ${condition}`, async () => {
      const verifier = createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
      const verdict = await verifier.verify(await makeToken(), {
        signal: new AbortController().signal,
      });
      assert.deepEqual(verdict, { valid: false, reason });
    });
  }

  it('tells onTokenRejected the reason and the client only the bare 401 when a token expired', async () => {
    const onTokenRejected = mock.fn();
    const store = createPlantStore({
      verifier: createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE }),
      onTokenRejected,
    });
    const response = await store.fetch(
      new Request('http://localhost/plants', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await sign(trusted, { exp: now() - 600 })}`,
          'content-type': 'application/json',
          'x-request-id': 'jwt-1',
        },
        body: '{"id":1,"name":"Fern"}',
      }),
    );
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), {
      error: 401,
      message: 'the bearer token is not valid',
    });
    assert.deepEqual(
      onTokenRejected.mock.calls.map((call) => call.arguments),
      [['expired', { requestId: 'jwt-1' }]],
    );
  });
});
