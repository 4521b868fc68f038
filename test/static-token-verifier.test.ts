import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStaticTokenVerifier } from '../lib/index.ts';

const context = { signal: new AbortController().signal };

describe('createStaticTokenVerifier', () => {
  it('accepts each listed token and nothing else', () => {
    const verifier = createStaticTokenVerifier(['alpha-token', 'beta']);
    assert.deepEqual(verifier.verify('alpha-token', context), { valid: true });
    assert.deepEqual(verifier.verify('beta', context), { valid: true });
    for (const token of [
      'alpha',
      'alpha-token2',
      'alpha-tokeN',
      'bet',
      'betabeta',
      'b',
      'ALPHA-TOKEN',
    ]) {
      assert.deepEqual(verifier.verify(token, context), { valid: false }, token);
    }
  });

  it('does not accept a token that only matches a prefix or a repetition of a secret', () => {
    const verifier = createStaticTokenVerifier(['ab']);
    for (const token of ['a', 'abab', 'aba', 'ba']) {
      assert.deepEqual(verifier.verify(token, context), { valid: false }, token);
    }
  });

  it('compares code unit by code unit, a surrogate pair as two units', () => {
    const verifier = createStaticTokenVerifier(['k\u{1F33F}y']);
    assert.deepEqual(verifier.verify('k\u{1F33F}y', context), { valid: true });
    for (const token of ['k\uD83Cy', 'k\uDF3Fy', 'k\uD83C\uDF3Ey', 'k\u{1F33F}']) {
      assert.deepEqual(verifier.verify(token, context), { valid: false }, token);
    }
  });

  it('accepts any iterable of tokens', () => {
    const verifier = createStaticTokenVerifier(new Set(['one']));
    assert.deepEqual(verifier.verify('one', context), { valid: true });
  });

  it('throws a TypeError when given no token or an empty one', () => {
    assert.throws(() => createStaticTokenVerifier([]), {
      name: 'TypeError',
      message: 'createStaticTokenVerifier needs at least one token',
    });
    for (const tokens of [[''], ['ok', ''], [42 as unknown as string]]) {
      assert.throws(() => createStaticTokenVerifier(tokens), {
        name: 'TypeError',
        message: 'createStaticTokenVerifier takes non-empty string tokens',
      });
    }
  });
});
