/**
 * What `createJwtVerifier` refuses at construction, and what it does then.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createSecretKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type CryptoKey } from 'jose';
import { createJwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtAlgorithm } from '../../lib/jwt.ts';
import {
  AUDIENCE,
  closeJwksServers,
  ISSUER,
  makeTestKeys,
  sleep,
  startJwksServer,
  type TestKey,
  verifierFor,
} from '../support/jwt-helpers.ts';

let rs256: TestKey;

before(async () => {
  ({ rs256 } = await makeTestKeys());
});
after(closeJwksServers);

describe('createJwtVerifier', () => {
  describe('construction', () => {
    let shortSecretKey: CryptoKey;
    before(async () => {
      shortSecretKey = await crypto.subtle.importKey(
        'raw',
        new Uint8Array(16),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['verify'],
      );
    });
    const jwksUrl = 'https://id.example.test/jwks.json';
    const misuses: ReadonlyArray<[string, () => unknown, RegExp]> = [
      ['no options are given', () => createJwtVerifier(undefined as never), /options object/],
      [
        'an option is misspelled',
        () => {
          // Built elsewhere, the object type-checks; a literal at the call would not.
          const options = { jwksUrl, issuer: ISSUER, audience: AUDIENCE, clockSkew: 60 };
          return createJwtVerifier(options);
        },
        /^createJwtVerifier: unknown option "clockSkew" \(known: jwksUrl, key, issuer, audience, algorithms, clockTolerance, cooldownDuration, cacheMaxAge, maxStaleAge, timeoutDuration, maxJwksBytes\)$/,
      ],
      [
        'issuer is missing',
        () => createJwtVerifier({ jwksUrl, audience: AUDIENCE } as never),
        /"issuer"/,
      ],
      [
        'issuer is empty',
        () => createJwtVerifier({ jwksUrl, issuer: '', audience: AUDIENCE }),
        /"issuer"/,
      ],
      [
        'audience is missing',
        () => createJwtVerifier({ jwksUrl, issuer: ISSUER } as never),
        /"audience"/,
      ],
      [
        'no key source is given',
        () => createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE }),
        /key source/,
      ],
      [
        'both jwksUrl and key are given',
        () =>
          createJwtVerifier({ jwksUrl, key: rs256.publicKey, issuer: ISSUER, audience: AUDIENCE }),
        /not both/,
      ],
      [
        'jwksUrl is not a URL',
        () => createJwtVerifier({ jwksUrl: 'jwks', issuer: ISSUER, audience: AUDIENCE }),
        /not a URL/,
      ],
      [
        'jwksUrl is not http(s)',
        () =>
          createJwtVerifier({
            jwksUrl: 'file:///etc/jwks.json',
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /http or https/,
      ],
      ['algorithms is empty', () => withAlgorithms([]), /non-empty array/],
      ['algorithms is a string', () => withAlgorithms('RS256' as never), /non-empty array/],
      ['algorithms holds none', () => withAlgorithms(['RS256', 'none']), /"none" is never/],
      ['algorithms holds NONE', () => withAlgorithms(['NONE']), /"none" is never/],
      [
        'algorithms holds an unknown name',
        () => withAlgorithms(['RS257']),
        /unknown algorithm "RS257"/,
      ],
      [
        'algorithms holds HS256 with a JWKS',
        () => withAlgorithms(['RS256', 'HS256']),
        /HS256 needs a symmetric/,
      ],
      [
        'algorithms holds HS256 with a public key',
        () =>
          createJwtVerifier({
            key: rs256.publicKey,
            algorithms: ['HS256'],
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /HS256 needs a symmetric/,
      ],
      [
        'algorithms holds RS256 with a secret',
        () =>
          createJwtVerifier({
            key: new Uint8Array(32),
            algorithms: ['HS256', 'RS256'],
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /RS256 needs a public key/,
      ],
      [
        'the secret is shorter than the hash',
        () => createJwtVerifier({ key: new Uint8Array(16), issuer: ISSUER, audience: AUDIENCE }),
        /at least 32 bytes/,
      ],
      [
        'the secret is too short for HS512',
        () =>
          createJwtVerifier({
            key: new Uint8Array(32),
            algorithms: ['HS256', 'HS512'],
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /HS512 must be at least 64 bytes/,
      ],
      [
        'the secret CryptoKey is shorter than the hash',
        () => createJwtVerifier({ key: shortSecretKey, issuer: ISSUER, audience: AUDIENCE }),
        /at least 32 bytes/,
      ],
      [
        'the secret KeyObject is shorter than the hash',
        () =>
          createJwtVerifier({
            key: createSecretKey(new Uint8Array(16)),
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /at least 32 bytes/,
      ],
      [
        'the oct JWK is shorter than the hash',
        () =>
          createJwtVerifier({ key: { kty: 'oct', k: 'AAAA' }, issuer: ISSUER, audience: AUDIENCE }),
        /at least 32 bytes/,
      ],
      [
        'the oct JWK has no k',
        () => createJwtVerifier({ key: { kty: 'oct' }, issuer: ISSUER, audience: AUDIENCE }),
        /needs "k"/,
      ],
      [
        'the key is an object that is no key',
        () => createJwtVerifier({ key: {} as never, issuer: ISSUER, audience: AUDIENCE }),
        /"key" must be/,
      ],
      ['algorithms holds a number', () => withAlgorithms([256 as never]), /non-empty array/],
      [
        'jwksUrl is neither a string nor a URL',
        () => createJwtVerifier({ jwksUrl: 42 as never, issuer: ISSUER, audience: AUDIENCE }),
        /string or a URL/,
      ],
      [
        'the key is private',
        () => createJwtVerifier({ key: rs256.privateKey, issuer: ISSUER, audience: AUDIENCE }),
        /never private/,
      ],
      [
        'the key is a private JWK',
        () =>
          createJwtVerifier({
            key: { ...rs256.jwk, d: 'AQAB' },
            issuer: ISSUER,
            audience: AUDIENCE,
          }),
        /never a private/,
      ],
      [
        'the key is a string',
        () => createJwtVerifier({ key: 'secret' as never, issuer: ISSUER, audience: AUDIENCE }),
        /"key" must be/,
      ],
      [
        'clockTolerance is negative',
        () => withAlgorithms(undefined, { clockTolerance: -1 }),
        /clockTolerance/,
      ],
      [
        'clockTolerance is a duration string',
        () => withAlgorithms(undefined, { clockTolerance: '30s' }),
        /clockTolerance/,
      ],
      [
        'cooldownDuration is negative',
        () => withAlgorithms(undefined, { cooldownDuration: -1 }),
        /cooldownDuration/,
      ],
      [
        'cacheMaxAge is a duration string',
        () => withAlgorithms(undefined, { cacheMaxAge: '10m' }),
        /"cacheMaxAge" must be a non-negative number/,
      ],
      [
        'maxStaleAge is NaN',
        () => withAlgorithms(undefined, { maxStaleAge: Number.NaN }),
        /"maxStaleAge" must be a non-negative number/,
      ],
      [
        'maxStaleAge is less than cacheMaxAge',
        () => withAlgorithms(undefined, { cacheMaxAge: 60_000, maxStaleAge: 1_000 }),
        /"maxStaleAge" \(1000\) must not be less than "cacheMaxAge" \(60000\)/,
      ],
      [
        'maxJwksBytes is not a positive integer',
        () => withAlgorithms(undefined, { maxJwksBytes: 0 }),
        /"maxJwksBytes" must be a positive integer/,
      ],
      [
        'timeoutDuration is not an integer',
        () => withAlgorithms(undefined, { timeoutDuration: 1.5 }),
        /timeoutDuration/,
      ],
    ];
    for (const [condition, build, message] of misuses) {
      it(`throws a TypeError when ${condition}`, () => {
        assert.throws(build, (error) => {
          assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
          assert.match(error.message, message);
          return true;
        });
      });
    }

    function withAlgorithms(algorithms: readonly string[] | undefined, extra: object = {}) {
      return createJwtVerifier({
        jwksUrl,
        issuer: ISSUER,
        audience: AUDIENCE,
        // Misuse from JavaScript: names outside the JwtAlgorithm union, checked at run time.
        algorithms: algorithms as readonly JwtAlgorithm[] | undefined,
        ...extra,
      });
    }

    it('never echoes a password or a query of jwksUrl when it refuses the URL', () => {
      const refusals: ReadonlyArray<[string, RegExp]> = [
        [
          'https://user:s3cret@id.example.test/jwks.json?key=s3cret',
          /^createJwtVerifier: "jwksUrl" must not hold a user name or password: https:\/\/\*\*\*@id\.example\.test\/jwks\.json\?\*\*\*$/,
        ],
        ['s3cret', /^createJwtVerifier: "jwksUrl" is not a URL$/],
      ];
      for (const [jwksUrl, message] of refusals) {
        assert.throws(
          () => createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE }),
          (error) => error instanceof TypeError && message.test(error.message),
        );
      }
    });

    it('fetches nothing when it is constructed', async () => {
      const server = await startJwksServer([rs256.jwk]);
      verifierFor(server);
      await sleep(20);
      assert.equal(server.requests, 0);
    });

    it('exports the contract default allowlist', () => {
      assert.deepEqual(DEFAULT_JWT_ALGORITHMS, ['RS256', 'PS256', 'ES256', 'EdDSA']);
      assert.ok(Object.isFrozen(DEFAULT_JWT_ALGORITHMS));
    });
  });
});
