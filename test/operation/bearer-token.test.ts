import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { B64TOKEN, bearerToken } from '../../lib/operation/bearer-token.ts';

/** The characters of RFC 6750's `b64token`, padding aside. */
const TOKEN_CHARACTERS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ...'-._~+/',
];

/** Any `b64token`: one or more of its characters, then optional `=` padding. */
const b64token = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), minLength: 1, maxLength: 40 }),
    fc.string({ unit: fc.constant('='), maxLength: 3 }),
  )
  .map(([token, padding]) => token + padding);

/** `bearer` in any mix of cases. */
const scheme = fc
  .array(fc.boolean(), { minLength: 6, maxLength: 6 })
  .map((upper) => [...'bearer'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/**
 * Text near a token: its characters, padding, spaces, and the characters a careless pattern
 * lets through (a tab, a comma, quotes, non-ASCII letters, and `ſ` and `K`, which a
 * case-insensitive Unicode `\w` matches).
 */
const nearToken = fc.string({
  unit: fc.constantFrom(...TOKEN_CHARACTERS, '=', ' ', '\t', ',', '"', 'ö', '\u00a0', 'ſ', 'K'),
  maxLength: 12,
});

describe('bearerToken', () => {
  it('reads the token when the header is any-case Bearer, spaces, then a b64token', () => {
    fc.assert(
      fc.property(scheme, fc.integer({ min: 1, max: 4 }), b64token, (name, spaces, token) => {
        assert.ok(B64TOKEN.test(token), token);
        assert.equal(bearerToken(`${name}${' '.repeat(spaces)}${token}`), token);
      }),
    );
  });

  it('finds a token exactly when what follows the spaces is a b64token, as verifiers check it', () => {
    // The static verifier refuses any token outside B64TOKEN; the header must carry exactly
    // those, or a configured token could never be presented (or an unchecked one could be).
    fc.assert(
      fc.property(nearToken, (rest) => {
        const afterSpaces = rest.replace(/^ +/, '');
        const expected = B64TOKEN.test(afterSpaces) ? afterSpaces : undefined;
        assert.equal(bearerToken(`Bearer ${rest}`), expected, JSON.stringify(rest));
      }),
      { numRuns: 2000 },
    );
  });
});
