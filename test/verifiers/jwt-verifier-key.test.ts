/**
 * `createJwtVerifier` with a configured key or secret instead of a JWKS.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createSecretKey, KeyObject } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { base64url, exportSPKI } from 'jose';
import { createJwtVerifier } from '../../lib/jwt.ts';
import {
  assertRefused,
  AUDIENCE,
  hmacToken,
  hmacWithPublicKey,
  ISSUER,
  makeTestKeys,
  sign,
  type TestKey,
  verify,
} from '../support/jwt-helpers.ts';

let rs256: TestKey;
let ps256: TestKey;
let es256: TestKey;
let eddsa: TestKey;

before(async () => {
  ({ rs256, ps256, es256, eddsa } = await makeTestKeys());
});

describe('createJwtVerifier', () => {
  describe('a configured key instead of a JWKS', () => {
    it('accepts a token signed by the configured public key', async () => {
      const verifier = createJwtVerifier({
        key: es256.publicKey,
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      assert.equal((await verify(verifier, await sign(es256))).valid, true);
    });

    it('accepts a token when the configured key is a public JWK', async () => {
      const verifier = createJwtVerifier({ key: eddsa.jwk, issuer: ISSUER, audience: AUDIENCE });
      assert.equal((await verify(verifier, await sign(eddsa))).valid, true);
    });

    it('answers { valid: false } when an allowlisted alg does not fit the configured key', async () => {
      // jose throws a TypeError for an RSA key asked to check ES256: the token's fault, not a 500.
      const verifier = createJwtVerifier({
        key: rs256.publicKey,
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      assertRefused(await verify(verifier, await sign(es256)));
      assertRefused(await verify(verifier, await sign(ps256)));
    });

    it('answers { valid: false } when HS256 is signed with the configured RSA public key as the secret', async () => {
      const verifier = createJwtVerifier({
        key: rs256.publicKey,
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      const pem = new TextEncoder().encode(await exportSPKI(rs256.publicKey));
      assertRefused(await verify(verifier, await hmacWithPublicKey(pem, rs256.kid)));
    });

    it('accepts HS256 when a symmetric secret is configured and it signed the token', async () => {
      const secret = crypto.getRandomValues(new Uint8Array(32));
      const verifier = createJwtVerifier({ key: secret, issuer: ISSUER, audience: AUDIENCE });
      const token = await hmacToken(secret);
      assert.equal((await verify(verifier, token)).valid, true);
    });

    it('answers { valid: false } for an HS256 token signed with another secret', async () => {
      const secret = crypto.getRandomValues(new Uint8Array(32));
      const other = crypto.getRandomValues(new Uint8Array(32));
      const verifier = createJwtVerifier({ key: secret, issuer: ISSUER, audience: AUDIENCE });
      assertRefused(await verify(verifier, await hmacToken(other)));
    });

    it('answers { valid: false } for an RS256 token when a symmetric secret is configured', async () => {
      const secret = crypto.getRandomValues(new Uint8Array(32));
      const verifier = createJwtVerifier({ key: secret, issuer: ISSUER, audience: AUDIENCE });
      assertRefused(await verify(verifier, await sign(rs256)));
    });

    it('accepts HS384 when the secret is a CryptoKey, a KeyObject or an oct JWK', async () => {
      const bytes = crypto.getRandomValues(new Uint8Array(48));
      const token = await hmacToken(bytes, 'HS384');
      const keys = [
        await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-384' }, false, [
          'verify',
        ]),
        createSecretKey(bytes),
        { kty: 'oct', k: base64url.encode(bytes) },
      ];
      for (const key of keys) {
        const verifier = createJwtVerifier({
          key,
          algorithms: ['HS384'],
          issuer: ISSUER,
          audience: AUDIENCE,
        });
        assert.equal((await verify(verifier, token)).valid, true);
      }
    });

    it('accepts a token when the configured key is a public KeyObject', async () => {
      const key = KeyObject.from(rs256.publicKey);
      const verifier = createJwtVerifier({ key, issuer: ISSUER, audience: AUDIENCE });
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
    });

    it('answers { valid: false } for HS512 when the secret is configured for HS256 only', async () => {
      const secret = crypto.getRandomValues(new Uint8Array(64));
      const verifier = createJwtVerifier({ key: secret, issuer: ISSUER, audience: AUDIENCE });
      assertRefused(await verify(verifier, await hmacToken(secret, 'HS512')));
    });
  });
});
