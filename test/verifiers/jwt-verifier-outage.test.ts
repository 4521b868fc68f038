/**
 * `createJwtVerifier` through a JWKS outage: the last good keys, `maxStaleAge`, `status()` and `reload()`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { createJwtVerifier } from '../../lib/jwt.ts';
import {
  assertRefused,
  AUDIENCE,
  closedPortUrl,
  closeJwksServers,
  DEADLINE_MS,
  ISSUER,
  type JwksServer,
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

before(async () => {
  ({ rs256, es256 } = await makeTestKeys());
});
after(closeJwksServers);

describe('createJwtVerifier', () => {
  describe('through a JWKS outage', () => {
    const MINUTE = 60_000;
    const HOUR = 60 * MINUTE;

    /** Fakes Date only (timers and sockets stay real); returns a function that moves it on. */
    function fakeClock(t: TestContext): (ms: number) => void {
      let time = Date.now();
      t.mock.timers.enable({ apis: ['Date'], now: time });
      return (ms) => {
        time += ms;
        t.mock.timers.setTime(time);
      };
    }

    /** Waits until the JWKS server has seen `count` requests and the verifier has heard back. */
    async function fetchesSettle(
      server: JwksServer,
      verifier: ReturnType<typeof createJwtVerifier>,
      count: number,
    ): Promise<void> {
      const started = performance.now();
      while (server.requests < count || verifier.status().lastFetch === undefined) {
        assert.ok(performance.now() - started < DEADLINE_MS, `only ${server.requests} fetches`);
        await sleep(5);
      }
      await sleep(20);
    }

    it('keeps accepting tokens with the last good keys and fetches once per cooldown when the JWKS fails past cacheMaxAge', async (t) => {
      const tick = fakeClock(t);
      const server = await startJwksServer([rs256.jwk, es256.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      tick(11 * MINUTE);

      // Before, each of these fetched the JWKS again and threw (500 for every valid token).
      const token = await sign(rs256);
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => verify(verifier, token)));
      assert.ok(verdicts.every((verdict) => verdict.valid));
      await fetchesSettle(server, verifier, 2);
      for (let i = 0; i < 20; i++) assert.equal((await verify(verifier, token)).valid, true);
      assert.equal(server.requests, 2, 'one background fetch, then none within the cooldown');

      tick(31_000);
      for (let i = 0; i < 20; i++) assert.equal((await verify(verifier, token)).valid, true);
      await fetchesSettle(server, verifier, 3);
      assert.equal(server.requests, 3, 'one more fetch once the cooldown has passed');
    });

    it('throws for a kid that is not among the last good keys while the JWKS cannot be fetched', async (t) => {
      const tick = fakeClock(t);
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      tick(31_000);
      // The refetch the unknown kid allows fails: could not be checked, never invalid.
      await assert.rejects(verify(verifier, await sign(es256)), { code: 'ERR_JOSE_GENERIC' });
      assert.equal(server.requests, 2);
      // Within the cooldown of that failure: still thrown, and no fetch per request.
      for (let i = 0; i < 10; i++) {
        await assert.rejects(verify(verifier, await sign(es256)), { code: 'ERR_JOSE_GENERIC' });
      }
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      assert.equal(server.requests, 2);
    });

    it('throws once the last good keys are older than maxStaleAge, fetching at most once per cooldown', async (t) => {
      const tick = fakeClock(t);
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      tick(23 * HOUR);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      await fetchesSettle(server, verifier, 2);

      tick(HOUR + 1);
      const token = await sign(rs256);
      await assert.rejects(verify(verifier, token), { code: 'ERR_JOSE_GENERIC' });
      for (let i = 0; i < 10; i++) {
        await assert.rejects(verify(verifier, token), { code: 'ERR_JOSE_GENERIC' });
      }
      assert.equal(server.requests, 3);
    });

    it('honours a shorter maxStaleAge when one is configured', async (t) => {
      const tick = fakeClock(t);
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server, { maxStaleAge: HOUR });
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      server.setMode('error');
      tick(HOUR - 1);
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      tick(2);
      await assert.rejects(verify(verifier, await sign(rs256)), { code: 'ERR_JOSE_GENERIC' });
    });

    it('takes a rotated key and refuses the dropped one once the JWKS answers again', async (t) => {
      const tick = fakeClock(t);
      const [oldKey, newKey] = await Promise.all([
        makeKey('ES256', 'old'),
        makeKey('ES256', 'new'),
      ]);
      const server = await startJwksServer([oldKey.jwk]);
      const verifier = verifierFor(server);
      assert.equal((await verify(verifier, await sign(oldKey))).valid, true);
      server.setMode('error');
      tick(11 * MINUTE);
      assert.equal((await verify(verifier, await sign(oldKey))).valid, true);
      await fetchesSettle(server, verifier, 2);
      await assert.rejects(verify(verifier, await sign(newKey)), { code: 'ERR_JOSE_GENERIC' });

      server.setKeys([newKey.jwk]);
      server.setMode('ok');
      tick(31_000);
      assert.equal((await verify(verifier, await sign(newKey))).valid, true);
      assertRefused(await verify(verifier, await sign(oldKey)));
      assert.equal(server.requests, 3);
    });
  });

  describe('status and reload', () => {
    it('reports fresh, then stale with the failed fetch, then expired keys as an outage lasts', async (t) => {
      let time = Date.now();
      t.mock.timers.enable({ apis: ['Date'], now: time });
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server, { cacheMaxAge: 1_000, maxStaleAge: 10_000 });
      await withDeadline(verifier.reload());
      assert.deepEqual(verifier.status(), {
        ready: true,
        keys: 'fresh',
        ageMs: 0,
        lastFetch: { ok: true, ageMs: 0 },
      });

      server.setMode('error');
      t.mock.timers.setTime((time += 2_000));
      verifier.status(); // like a request, it starts the refetch that is due
      while (verifier.status().lastFetch?.ok !== false) await sleep(5);
      assert.deepEqual(verifier.status(), {
        ready: true,
        keys: 'stale',
        ageMs: 2_000,
        lastFetch: {
          ok: false,
          ageMs: 0,
          error: 'Expected 200 OK from the JSON Web Key Set HTTP response',
        },
      });

      t.mock.timers.setTime((time += 8_001));
      const expired = verifier.status();
      assert.equal(expired.ready, false);
      assert.equal(expired.keys, 'expired');
      assert.equal(expired.ageMs, 10_001);
    });

    it('reports no keys and not ready before the first fetch, and ready once reload() resolves', async () => {
      const server = await startJwksServer([rs256.jwk]);
      const verifier = verifierFor(server, { cacheMaxAge: 60_000 });
      assert.deepEqual(
        { ...verifier.status(), lastFetch: undefined },
        { ready: false, keys: 'none', lastFetch: undefined },
      );
      await withDeadline(verifier.reload());
      assert.equal(verifier.status().keys, 'fresh');
      assert.equal((await verify(verifier, await sign(rs256))).valid, true);
      assert.equal(server.requests, 1);
    });

    it('rejects reload() with the fetch error and reports it when the JWKS cannot be fetched', async () => {
      const verifier = createJwtVerifier({
        jwksUrl: await closedPortUrl(),
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      await assert.rejects(withDeadline(verifier.reload()), { message: 'fetch failed' });
      const status = verifier.status();
      assert.equal(status.ready, false);
      assert.equal(status.keys, 'none');
      assert.match(status.lastFetch?.error ?? '', /^fetch failed: connect ECONNREFUSED/);
    });

    it('reports a configured key as always ready', async () => {
      const verifier = createJwtVerifier({
        key: rs256.publicKey,
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      await verifier.reload();
      assert.deepEqual(verifier.status(), { ready: true, keys: 'fixed' });
    });
  });
});
