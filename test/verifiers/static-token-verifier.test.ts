import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStaticTokenVerifier } from '../../lib/index.ts';

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
      assert.deepEqual(
        verifier.verify(token, context),
        { valid: false, reason: 'unknown_token' },
        token,
      );
    }
  });

  it('does not accept a token that only matches a prefix or a repetition of a secret', () => {
    const verifier = createStaticTokenVerifier(['ab']);
    for (const token of ['a', 'abab', 'aba', 'ba']) {
      assert.deepEqual(
        verifier.verify(token, context),
        { valid: false, reason: 'unknown_token' },
        token,
      );
    }
  });

  it('compares every code unit: a token that differs only in its last one is refused', () => {
    const verifier = createStaticTokenVerifier(['k3y~=']);
    assert.deepEqual(verifier.verify('k3y~=', context), { valid: true });
    for (const token of ['k3y~-', 'k3y}=', 'K3y~=', 'k3y~', 'k3y~==']) {
      assert.deepEqual(
        verifier.verify(token, context),
        { valid: false, reason: 'unknown_token' },
        token,
      );
    }
  });

  it('accepts a list or a set of tokens', () => {
    const verifier = createStaticTokenVerifier(new Set(['one']));
    assert.deepEqual(verifier.verify('one', context), { valid: true });
  });

  it('throws a TypeError when given no token', () => {
    assert.throws(() => createStaticTokenVerifier([]), {
      name: 'TypeError',
      message: 'createStaticTokenVerifier needs at least one token',
    });
  });

  it('throws a TypeError for one string in place of a list, which would accept each of its characters', () => {
    // @ts-expect-error -- a string is iterable, but the parameter type refuses it
    assert.throws(() => createStaticTokenVerifier('s3cr3t'), {
      name: 'TypeError',
      message:
        "createStaticTokenVerifier takes a list of tokens, not one string: createStaticTokenVerifier(['s3cr3t'])",
    });
    for (const tokens of [undefined, null, 42, { token: 's3cr3t' }]) {
      assert.throws(() => createStaticTokenVerifier(tokens as never), TypeError, String(tokens));
    }
  });

  it('throws a TypeError for a token no client could present: empty, not a string or not a b64token', () => {
    for (const tokens of [
      [''],
      ['ok', ''],
      [42],
      ['has space'],
      ['k\u{1F33F}y'],
      ['a=b'],
      ['t,u'],
    ]) {
      assert.throws(() => createStaticTokenVerifier(tokens as string[]), {
        name: 'TypeError',
        message:
          'createStaticTokenVerifier takes bearer tokens (RFC 6750 b64token: letters, digits, -._~+/, then optional =)',
      });
    }
  });
});
