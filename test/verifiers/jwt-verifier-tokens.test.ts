/**
 * The tokens `createJwtVerifier` accepts and refuses against a JWKS, one key or several per alg.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { base64url, CompactSign, decodeJwt, exportSPKI, type JWTPayload, SignJWT } from 'jose';
import {
  assertRefused,
  AUDIENCE,
  closeJwksServers,
  hmacWithPublicKey,
  ISSUER,
  type JwksServer,
  makeKey,
  makeTestKeys,
  now,
  sign,
  signWith,
  startJwksServer,
  type TestKey,
  unsignedToken,
  verifierFor,
  verify,
} from '../support/jwt-helpers.ts';

let rs256: TestKey;
let ps256: TestKey;
let es256: TestKey;
let eddsa: TestKey;
let stranger: TestKey;
let jwks: JwksServer;

before(async () => {
  ({ rs256, ps256, es256, eddsa, stranger } = await makeTestKeys());
  jwks = await startJwksServer([rs256.jwk, ps256.jwk, es256.jwk, eddsa.jwk]);
});
after(closeJwksServers);

describe('createJwtVerifier', () => {
  describe('accepted tokens', () => {
    for (const name of ['RS256', 'PS256', 'ES256', 'EdDSA']) {
      it(`accepts a token with its claims as the principal when it is signed ${name} by a JWKS key`, async () => {
        const key = { RS256: rs256, PS256: ps256, ES256: es256, EdDSA: eddsa }[name] as TestKey;
        const token = await sign(key, { claims: { scope: 'plants:write' } });
        const verdict = await verify(verifierFor(jwks), token);
        assert.equal(verdict.valid, true);
        const principal = (verdict as { principal: JWTPayload }).principal;
        assert.deepEqual(principal, decodeJwt(token));
        assert.equal(principal.scope, 'plants:write');
        assert.equal(principal.sub, 'gardener-1');
      });
    }

    it('accepts a token when its aud is an array that contains the audience', async () => {
      const token = await sign(rs256, { claims: { aud: ['billing', AUDIENCE] } });
      assert.equal((await verify(verifierFor(jwks), token)).valid, true);
    });

    it('accepts a token without kid when one JWKS key of its alg verifies it', async () => {
      const token = await sign(es256, { noKid: true });
      assert.equal((await verify(verifierFor(jwks), token)).valid, true);
    });

    it('accepts an expired token and a not-yet-valid one when both are within the 30 s tolerance', async () => {
      const verifier = verifierFor(jwks);
      const expired = await sign(rs256, { claims: { exp: now() - 10 } });
      const early = await sign(rs256, { claims: { nbf: now() + 10 } });
      assert.equal((await verify(verifier, expired)).valid, true);
      assert.equal((await verify(verifier, early)).valid, true);
    });

    it('accepts a token whose nbf is in the past', async () => {
      const token = await sign(rs256, { claims: { nbf: now() - 60 } });
      assert.equal((await verify(verifierFor(jwks), token)).valid, true);
    });

    it('honours a custom clockTolerance when one is configured', async () => {
      const token = await sign(rs256, { claims: { exp: now() - 100 } });
      assert.equal((await verify(verifierFor(jwks, { clockTolerance: 300 }), token)).valid, true);
      assertRefused(await verify(verifierFor(jwks, { clockTolerance: 0 }), token));
    });
  });

  describe('invalid tokens', () => {
    const cases: ReadonlyArray<[string, () => Promise<string>]> = [
      ['it expired beyond the tolerance', () => sign(rs256, { claims: { exp: now() - 60 } })],
      [
        'its nbf is in the future beyond the tolerance',
        () => sign(rs256, { claims: { nbf: now() + 120 } }),
      ],
      ['it has no exp', () => sign(rs256, { noExp: true })],
      [
        'exp is not a number',
        () => sign(rs256, { claims: { exp: `${now() + 300}` as unknown as number } }),
      ],
      ['its iss differs', () => sign(rs256, { claims: { iss: 'https://evil.example.test/' } })],
      [
        'its iss differs only by a trailing slash',
        () => sign(rs256, { claims: { iss: ISSUER.slice(0, -1) } }),
      ],
      ['it has no iss', () => sign(rs256, { claims: { iss: undefined } })],
      ['its aud differs', () => sign(rs256, { claims: { aud: 'billing' } })],
      [
        'its aud array lacks the audience',
        () => sign(rs256, { claims: { aud: ['billing', 'plants'] } }),
      ],
      ['it has no aud', () => sign(rs256, { claims: { aud: undefined } })],
      ['another key with the same kid signed it', () => sign(stranger)],
      [
        'its payload was changed after signing',
        async () => {
          const [header, , signature] = (await sign(rs256)).split('.');
          const forged = base64url.encode(
            JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', exp: now() + 300 }),
          );
          return `${header}.${forged}.${signature}`;
        },
      ],
      [
        'its alg is none',
        async () =>
          unsignedToken(
            { alg: 'none', typ: 'JWT' },
            { iss: ISSUER, aud: AUDIENCE, exp: now() + 300 },
          ),
      ],
      [
        'its alg is none with a kid and a copied signature',
        async () => {
          const signature = (await sign(rs256)).split('.')[2];
          return unsignedToken(
            { alg: 'none', kid: rs256.kid },
            { iss: ISSUER, aud: AUDIENCE, exp: now() + 300 },
            signature,
          );
        },
      ],
      [
        'it is HS256 signed with the RSA public key (SPKI PEM) as the secret',
        async () =>
          hmacWithPublicKey(new TextEncoder().encode(await exportSPKI(rs256.publicKey)), rs256.kid),
      ],
      [
        'it is HS256 signed with the RSA public key (JWK JSON) as the secret',
        async () =>
          hmacWithPublicKey(new TextEncoder().encode(JSON.stringify(rs256.jwk)), rs256.kid),
      ],
      ['its alg is not allowlisted (RS384)', async () => signWith('RS384', rs256)],
      ['its kid is in no JWKS key', () => sign(stranger, { header: { kid: 'nobody' } })],
      [
        'its header embeds a jwk, even one in the JWKS',
        () => sign(rs256, { header: { jwk: rs256.jwk } }),
      ],
      [
        'its header names a jku',
        () => sign(rs256, { header: { jku: 'https://evil.example.test/jwks' } }),
      ],
      [
        'its header names an x5u',
        () => sign(rs256, { header: { x5u: 'https://evil.example.test/cert' } }),
      ],
      ['its header carries an x5c', () => sign(rs256, { header: { x5c: ['MIIB'] } })],
      [
        'its crit names an unknown extension',
        // The signer is told it knows the extension; the verifier does not.
        () =>
          new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
            .setProtectedHeader({
              alg: 'RS256',
              kid: rs256.kid,
              crit: ['http://example.test/ext'],
              'http://example.test/ext': 1,
            })
            .sign(rs256.privateKey, { crit: { 'http://example.test/ext': true } }),
      ],
      [
        'its payload is not JSON',
        () =>
          new CompactSign(new TextEncoder().encode('not json'))
            .setProtectedHeader({ alg: 'RS256', kid: rs256.kid })
            .sign(rs256.privateKey),
      ],
      [
        'its payload is a JSON array',
        () =>
          new CompactSign(new TextEncoder().encode('[1]'))
            .setProtectedHeader({ alg: 'RS256', kid: rs256.kid })
            .sign(rs256.privateKey),
      ],
    ];
    for (const [condition, makeToken] of cases) {
      it(`answers { valid: false } when ${condition}`, async () => {
        const token = await makeToken();
        assertRefused(await verify(verifierFor(jwks), token));
      });
    }

    const malformed = [
      '',
      'not-a-jwt',
      'a.b',
      'a.b.c',
      'a.b.c.d',
      '..',
      'eyJhbGciOiJSUzI1NiJ9.e30',
      'eyJhbGciOiJSUzI1NiJ9.e30.%%%',
      `${base64url.encode('not json')}.e30.c2ln`,
      `${base64url.encode('[]')}.e30.c2ln`,
      `${base64url.encode('{"alg":7}')}.e30.c2ln`,
    ];
    for (const token of malformed) {
      it(`answers { valid: false } when the token is malformed: ${JSON.stringify(token)}`, async () => {
        assertRefused(await verify(verifierFor(jwks), token));
      });
    }

    it('answers { valid: false } when a valid RS256 token meets an allowlist of ES256 only', async () => {
      const token = await sign(rs256);
      assertRefused(await verify(verifierFor(jwks, { algorithms: ['ES256'] }), token));
    });

    it('answers { valid: false } when no kid is given and no JWKS key of its alg verifies it', async () => {
      const token = await sign(stranger, { noKid: true });
      assertRefused(await verify(verifierFor(jwks), token));
    });
  });

  describe('several keys for one alg', () => {
    it('accepts a token without kid when the second of two matching keys verifies it', async () => {
      const [first, second] = await Promise.all([makeKey('RS256', 'a'), makeKey('RS256', 'b')]);
      const server = await startJwksServer([first.jwk, second.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(second, { noKid: true }))).valid, true);
      assert.equal((await verify(verifier, await sign(first, { noKid: true }))).valid, true);
      assertRefused(await verify(verifier, await sign(stranger, { noKid: true })));
    });

    it('answers { valid: false } when the key that verifies a kid-less token finds it expired', async () => {
      const [first, second] = await Promise.all([makeKey('RS256', 'a'), makeKey('RS256', 'b')]);
      const server = await startJwksServer([first.jwk, second.jwk]);
      const token = await sign(second, { noKid: true, claims: { exp: now() - 120 } });
      assertRefused(await verify(verifierFor(server), token));
    });
  });
});
