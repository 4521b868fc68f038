import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { createStaticTokenVerifier, type TokenVerifier } from '../../lib/index.ts';
import { createJwtVerifier } from '../../lib/jwt.ts';
import { registerVerifierConformance, runVerifierConformance } from '../../lib/testing.ts';

const { privateKey, publicKey } = await generateKeyPair('ES256');
const otherKey = (await generateKeyPair('ES256')).privateKey;
const claims = {
  iss: 'https://id.example',
  aud: 'plant-store',
  sub: 'gardener-7',
  exp: Math.floor(Date.now() / 1000) + 3600,
};
const sign = (key: CryptoKey, extra: Record<string, unknown> = {}) =>
  new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: 'ES256' }).sign(key);

describe('createStaticTokenVerifier: the conformance kit', () => {
  registerVerifierConformance(it, () => createStaticTokenVerifier(['alpha-token', 'k3y~=']), {
    valid: ['alpha-token', 'k3y~='],
    invalid: ['alpha', 'ALPHA-TOKEN', 'beta', 'k3y~'],
  });
});

// Signed before the tests are declared: runners collect tests synchronously.
const jwtCases = {
  valid: [{ token: await sign(privateKey), principal: claims }],
  invalid: [
    await sign(otherKey),
    await sign(privateKey, { exp: Math.floor(Date.now() / 1000) - 3600 }),
    await sign(privateKey, { aud: 'another-api' }),
    'not.a.jwt',
  ],
};

describe('createJwtVerifier: the conformance kit', () => {
  registerVerifierConformance(
    it,
    () => createJwtVerifier({ key: publicKey, issuer: claims.iss, audience: claims.aud }),
    jwtCases,
  );
});

describe('runVerifierConformance', () => {
  it('names the refuses rule when the verifier accepts any token that starts with a valid one', async () => {
    const prefix: TokenVerifier = { verify: (token) => ({ valid: token.startsWith('s3cr3t') }) };
    const report = await runVerifierConformance(() => prefix, {
      valid: ['s3cr3t'],
      invalid: ['guess'],
    });
    assert.deepEqual(
      report.failed.map(({ error }) => error.message),
      ['refuses: valid token 0 with a character added was accepted'],
    );
  });

  it('names the refuses rule when the verifier throws for a token it does not know', async () => {
    const throwing: TokenVerifier = {
      verify: (token) => {
        if (token !== 's3cr3t') throw new Error('unknown token');
        return { valid: true };
      },
    };
    const report = await runVerifierConformance(() => throwing, {
      valid: ['s3cr3t'],
      invalid: ['guess'],
    });
    assert.equal(
      report.failed[0]?.error.message,
      'refuses: invalid token 0 threw (a 500 for the client) instead of answering { valid: false }',
    );
  });

  it('names the principal rule when the principal differs, and the verdict shape rule when the answer is no verdict', async () => {
    const verifier: TokenVerifier = {
      verify: (token) =>
        token === 'bad' ? (true as never) : { valid: token === 's3cr3t', principal: { id: 1 } },
    };
    const report = await runVerifierConformance(() => verifier, {
      valid: [{ token: 's3cr3t', principal: { id: 2 } }],
      invalid: ['bad'],
    });
    assert.deepEqual(
      report.failed.map(({ error }) => error.message.split(':')[0]),
      ['principal', 'verdict shape', 'verdict shape'],
    );
    assert.match(report.failed[1]?.error.message ?? '', /and it answered true$/);
  });

  it('throws a TypeError when no valid token is given', async () => {
    await assert.rejects(
      runVerifierConformance(() => createStaticTokenVerifier(['a']), { valid: [], invalid: [] }),
      {
        name: 'TypeError',
        message:
          'runVerifierConformance needs cases { valid: [at least one token], invalid: [tokens] }',
      },
    );
  });
});
