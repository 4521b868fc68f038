import assert from 'node:assert/strict';
import { createSecretKey, KeyObject } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, type TestContext } from 'node:test';
import {
  base64url,
  CompactSign,
  type CryptoKey,
  decodeJwt,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import type { TokenVerdict } from '../../lib/index.ts';
import { createMemoryRepository, createPlantStore } from '../../lib/index.ts';
import { createJwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtAlgorithm } from '../../lib/jwt.ts';

const ISSUER = 'https://id.example.test/';
const AUDIENCE = 'plant-store';
const DEADLINE_MS = 5000;

/** Fails the test instead of hanging it when `promise` takes longer than `ms`. */
async function withDeadline<T>(promise: Promise<T> | T, ms = DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadline of ${ms} ms passed`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => Math.floor(Date.now() / 1000);
const context = () => ({ signal: new AbortController().signal });

interface TestKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

async function makeKey(alg: string, kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicKey, jwk };
}

interface SignOptions {
  readonly claims?: JWTPayload;
  readonly header?: Record<string, unknown>;
  /** Leave `kid` out of the header. */
  readonly noKid?: boolean;
  /** Leave `exp` out of the claims. */
  readonly noExp?: boolean;
}

/** A token signed by `key`, valid for this verifier unless `options` say otherwise. */
function sign(key: TestKey, options: SignOptions = {}): Promise<string> {
  const claims: JWTPayload = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'gardener-1',
    iat: now(),
    ...(options.noExp ? {} : { exp: now() + 300 }),
    ...options.claims,
  };
  const header = { alg: key.alg, ...(options.noKid ? {} : { kid: key.kid }), ...options.header };
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

function unsignedToken(header: object, claims: object, signature = ''): string {
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  return `${encode(header)}.${encode(claims)}.${signature}`;
}

type JwksMode = 'ok' | 'error' | 'bad-json' | 'not-a-key-set' | 'hang' | 'endless';

/** A JWKS served by node:http on 127.0.0.1, whose keys and behaviour a test can change. */
interface JwksServer {
  readonly url: string;
  /** The requests served so far. */
  readonly requests: number;
  setKeys(keys: readonly JWK[]): void;
  setMode(mode: JwksMode): void;
  close(): Promise<void>;
}

const servers: JwksServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function startJwksServer(keys: readonly JWK[]): Promise<JwksServer> {
  let current = keys;
  let mode: JwksMode = 'ok';
  let requests = 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((_request, response) => {
    requests++;
    if (mode === 'hang') {
      hanging.push(response);
      return;
    }
    if (mode === 'endless') {
      // A key server that streams for ever: a JWKS of whitespace that never ends.
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', more);
      more();
      hanging.push(response);
      return;
    }
    if (mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
      return;
    }
    const body =
      mode === 'bad-json'
        ? '{"keys": ['
        : JSON.stringify(mode === 'not-a-key-set' ? { keys: 'none' } : { keys: current });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const handle: JwksServer = {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get requests() {
      return requests;
    },
    setKeys(next) {
      current = next;
    },
    setMode(next) {
      mode = next;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
  servers.push(handle);
  return handle;
}

/** A URL on which nothing listens: a port that was free a moment ago. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/jwks.json`;
}

/** A refusal, with some reason (`jwt-reasons.test.ts` checks which one each case gets). */
function assertRefused(verdict: TokenVerdict): void {
  assert.equal(verdict.valid, false);
  assert.equal(typeof (verdict as { reason?: unknown }).reason, 'string');
}

let rs256: TestKey;
let ps256: TestKey;
let es256: TestKey;
let eddsa: TestKey;
let stranger: TestKey;
let jwks: JwksServer;

before(async () => {
  [rs256, ps256, es256, eddsa, stranger] = await Promise.all([
    makeKey('RS256', 'rsa-1'),
    makeKey('PS256', 'pss-1'),
    makeKey('ES256', 'ec-1'),
    makeKey('EdDSA', 'ed-1'),
    makeKey('RS256', 'rsa-1'), // same kid as rs256: only the signature tells them apart
  ]);
  jwks = await startJwksServer([rs256.jwk, ps256.jwk, es256.jwk, eddsa.jwk]);
});

function verifierFor(server: JwksServer, extra: Record<string, unknown> = {}) {
  return createJwtVerifier({ jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE, ...extra });
}

async function verify(
  verifier: ReturnType<typeof createJwtVerifier>,
  token: string,
): Promise<TokenVerdict> {
  return withDeadline(verifier.verify(token, context()));
}

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
        async () => hmacWithPublicKey(new TextEncoder().encode(await exportSPKI(rs256.publicKey))),
      ],
      [
        'it is HS256 signed with the RSA public key (JWK JSON) as the secret',
        async () => hmacWithPublicKey(new TextEncoder().encode(JSON.stringify(rs256.jwk))),
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
      assertRefused(await verify(verifier, await hmacWithPublicKey(pem)));
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
        /^createJwtVerifier: unknown option "clockSkew"; did you mean "jwksUrl"\? \(known: jwksUrl, key, issuer, audience, algorithms, clockTolerance, cooldownDuration, cacheMaxAge, maxStaleAge, timeoutDuration, maxJwksBytes\)$/,
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

function hmacToken(secret: Uint8Array, alg = 'HS256'): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg })
    .sign(secret);
}

/** The classic key-confusion attack: the public key's bytes used as an HMAC secret. */
function hmacWithPublicKey(secret: Uint8Array): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg: 'HS256', kid: rs256.kid })
    .sign(secret);
}

/** A token under `alg` made with `key`'s private key, reimported for that alg. */
async function signWith(alg: string, key: TestKey): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg, kid: key.kid })
    .sign(await reimport(key, alg));
}

async function reimport(key: TestKey, alg: string): Promise<CryptoKey> {
  const jwk = await exportJWK(key.privateKey);
  return (await importJWK({ ...jwk, alg }, alg)) as CryptoKey;
}

describe('createPlantStore with createJwtVerifier', () => {
  function storeFor(jwksUrl: string, t: TestContext) {
    const memory = createMemoryRepository();
    const create = t.mock.fn(memory.create.bind(memory));
    const onError = t.mock.fn((_error: unknown) => {});
    const verifier = createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
    const store = createPlantStore({ verifier, repository: { create }, onError });
    return { store, create, onError };
  }

  function createRequest(token: string): Request {
    return new Request('http://x/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id": 7, "name": "Monstera", "tag": "aroid"}',
    });
  }

  it('answers 200 with the plant and hands the claims to the repository when the JWT is valid', async (t) => {
    const { store, create, onError } = storeFor(jwks.url, t);
    const token = await sign(es256, { claims: { sub: 'gardener-7' } });
    const response = await withDeadline(store.handleCreatePlant(createRequest(token)));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { name: 'Monstera', tag: 'aroid' });
    assert.equal(create.mock.callCount(), 1);
    const principal = create.mock.calls[0]?.arguments[1].principal as JWTPayload;
    assert.deepEqual(principal, decodeJwt(token));
    assert.equal(onError.mock.callCount(), 0);
  });

  it('answers 401 with error="invalid_token" and never stores when the JWT is invalid', async (t) => {
    const { store, create, onError } = storeFor(jwks.url, t);
    for (const token of [
      await sign(rs256, { claims: { exp: now() - 120 } }),
      await sign(stranger),
      unsignedToken({ alg: 'none' }, { iss: ISSUER, aud: AUDIENCE, exp: now() + 300 }),
    ]) {
      const response = await withDeadline(store.handleCreatePlant(createRequest(token)));
      assert.equal(response.status, 401);
      assert.equal(
        response.headers.get('www-authenticate'),
        'Bearer realm="plant-store", error="invalid_token"',
      );
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(await response.json(), {
        error: 401,
        message: 'the bearer token is not valid',
      });
    }
    assert.equal(create.mock.callCount(), 0);
    assert.equal(onError.mock.callCount(), 0);
  });

  it('answers 500 internal error, reports it and never stores when the JWKS server is down', async (t) => {
    const { store, create, onError } = storeFor(await closedPortUrl(), t);
    const response = await withDeadline(store.handleCreatePlant(createRequest(await sign(rs256))));
    assert.equal(response.status, 500);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('www-authenticate'), null);
    assert.deepEqual(await response.json(), { error: 500, message: 'internal error' });
    assert.equal(create.mock.callCount(), 0);
    assert.equal(onError.mock.callCount(), 1);
  });

  it('answers 500 internal error when the JWKS server answers 500', async (t) => {
    const server = await startJwksServer([rs256.jwk]);
    server.setMode('error');
    const { store, create, onError } = storeFor(server.url, t);
    const response = await withDeadline(store.handleCreatePlant(createRequest(await sign(rs256))));
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), { error: 500, message: 'internal error' });
    assert.equal(create.mock.callCount(), 0);
    assert.deepEqual(
      (onError.mock.calls[0]?.arguments[0] as { code?: string } | undefined)?.code,
      'ERR_JOSE_GENERIC',
    );
  });
});
