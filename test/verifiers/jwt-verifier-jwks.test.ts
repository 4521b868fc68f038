/**
 * How `createJwtVerifier` caches the JWKS, takes rotated keys, and fails when the JWKS cannot be fetched.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createJwtVerifier } from '../../lib/jwt.ts';
import {
  assertRefused,
  AUDIENCE,
  closedPortUrl,
  closeJwksServers,
  ISSUER,
  type JwksMode,
  makeKey,
  makeTestKeys,
  sign,
  sleep,
  startJwksServer,
  type TestKey,
  verifierFor,
  verify,
  withDeadline,
} from '../support/jwt-helpers.ts';

let rs256: TestKey;
let es256: TestKey;
let eddsa: TestKey;

before(async () => {
  ({ rs256, es256, eddsa } = await makeTestKeys());
});
after(closeJwksServers);

describe('createJwtVerifier', () => {
  describe('the JWKS cache and key rotation', () => {
    it('fetches the JWKS once for many tokens when the keys are known', async () => {
      const server = await startJwksServer([rs256.jwk, es256.jwk]);
      const verifier = verifierFor(server);
      for (const key of [rs256, es256, rs256]) {
        assert.equal((await verify(verifier, await sign(key))).valid, true);
      }
      assert.equal(server.requests, 1);
    });

    it('refetches once and answers { valid: false } when the kid is unknown after the cooldown', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server, { cooldownDuration: 0 });
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      assertRefused(await verify(verifier, await sign(es256)));
      assert.equal(server.requests, 2);
    });

    it('does not refetch for an unknown kid when the default 30 s cooldown has not passed', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      assertRefused(await verify(verifier, await sign(es256)));
      assertRefused(await verify(verifier, await sign(eddsa)));
      assert.equal(server.requests, 1);
    });

    it('accepts a token from a rotated-in key and refuses the dropped key when the cooldown has passed', async () => {
      const [oldKey, newKey] = await Promise.all([
        makeKey('ES256', 'old'),
        makeKey('ES256', 'new'),
      ]);
      const server = await startJwksServer([oldKey.jwk]);
      const verifier = verifierFor(server, { cooldownDuration: 100 });
      const oldToken = await sign(oldKey);
      const newToken = await sign(newKey);
      assert.equal((await verify(verifier, oldToken)).valid, true);

      server.setKeys([newKey.jwk]);
      // Within the cooldown the new kid triggers no fetch yet; the cached old key still works.
      assertRefused(await verify(verifier, newToken));
      assert.equal((await verify(verifier, oldToken)).valid, true);
      assert.equal(server.requests, 1);

      await sleep(150);
      assert.equal((await verify(verifier, newToken)).valid, true);
      assert.equal(server.requests, 2);
      assertRefused(await verify(verifier, oldToken));
    });

    it('keeps verifying from the cache when the JWKS server goes down after a fetch', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
    });
  });

  describe('a JWKS that cannot be fetched', () => {
    it('throws, and never answers, when nothing listens on the JWKS port', async () => {
      const verifier = createJwtVerifier({
        jwksUrl: await closedPortUrl(),
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      await assert.rejects(verify(verifier, await sign(rs256)), {
        name: 'TypeError',
        message: 'fetch failed',
      });
    });

    const failures: ReadonlyArray<[JwksMode, string, object]> = [
      ['error', 'answers 500', { code: 'ERR_JOSE_GENERIC', message: /Expected 200 OK/ }],
      ['bad-json', 'answers invalid JSON', { code: 'ERR_JOSE_GENERIC', message: /parse/ }],
      ['not-a-key-set', 'answers JSON that is not a key set', { code: 'ERR_JWKS_INVALID' }],
    ];
    for (const [mode, condition, expected] of failures) {
      it(`throws ${(expected as { code: string }).code} when the JWKS server ${condition}`, async () => {
        const server = await startJwksServer([rs256.jwk]);
        server.setMode(mode);
        await assert.rejects(verify(verifierFor(server), await sign(rs256)), expected);
      });
    }

    it('throws, having read no more than the cap, when the JWKS server streams for ever', async () => {
      const server = await startJwksServer([rs256.jwk]);
      server.setMode('endless');
      const before = process.memoryUsage().rss;
      await assert.rejects(verify(verifierFor(server), await sign(rs256)), {
        message: 'the JWKS response is larger than 1048576 bytes (maxJwksBytes)',
      });
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'memory stayed bounded');
    });

    it('throws when the JWKS is larger than a configured maxJwksBytes, and accepts it within', async () => {
      const server = await startJwksServer([rs256.jwk]);
      await assert.rejects(verify(verifierFor(server, { maxJwksBytes: 100 }), await sign(rs256)), {
        message: 'the JWKS response is larger than 100 bytes (maxJwksBytes)',
      });
      const roomy = verifierFor(server, { maxJwksBytes: 100_000 });
      assert.equal((await verify(roomy, await sign(rs256))).valid, true);
    });

    it('throws ERR_JWKS_TIMEOUT when the JWKS server does not answer within timeoutDuration', async () => {
      const server = await startJwksServer([rs256.jwk]);
      server.setMode('hang');
      await assert.rejects(
        verify(verifierFor(server, { timeoutDuration: 100 }), await sign(rs256)),
        {
          code: 'ERR_JWKS_TIMEOUT',
        },
      );
    });

    it('throws when an unknown kid needs a refetch and the JWKS server now answers 500', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server, { cooldownDuration: 0 });
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      await assert.rejects(verify(verifier, await sign(es256)), { code: 'ERR_JOSE_GENERIC' });
    });

    it('rejects with the reason when the signal fires while the JWKS fetch hangs', async () => {
      const server = await startJwksServer([rs256.jwk]);
      server.setMode('hang');
      const controller = new AbortController();
      const reason = new Error('client went away');
      const pending = verifierFor(server).verify(await sign(rs256), { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 20);
      await assert.rejects(withDeadline(pending, 1000), (error) => error === reason);
    });

    it('rejects with the reason without fetching when the signal has already fired', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const reason = new Error('too late');
      const verdict = verifierFor(server).verify(await sign(rs256), {
        signal: AbortSignal.abort(reason),
      });
      await assert.rejects(withDeadline(verdict), (error) => error === reason);
      assert.equal(server.requests, 0);
    });
  });
});
