import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import {
  eachFewAtATime,
  exitsWithOneLine,
  postPlant,
  READY,
  startCli,
} from '../support/cli-helpers.ts';
import { type Child, delay, withDeadline } from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

const ISSUER = 'https://id.test/';
const AUDIENCE = 'plant-store';
const HIDE_PACKAGES = new URL('../support/hide-packages.mjs', import.meta.url).href;
const CLOCK_JUMP = new URL('../support/clock-jump.mjs', import.meta.url).href;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A JWKS served over node:http on a free loopback port. */
interface JwksServer {
  readonly url: string;
  /** The requests served so far. */
  readonly requests: number;
  /** While `true`, every request gets `503`. */
  down: boolean;
  close(): Promise<void>;
}

/** A JWKS served over node:http on a free loopback port. */
async function serveJwks(keys: readonly JWK[]): Promise<JwksServer> {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests++;
    if (handle.down) {
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const handle: JwksServer = {
    url: `http://127.0.0.1:${port}/jwks.json`,
    get requests() {
      return requests;
    },
    down: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return handle;
}

/** A server child whose Date.now() a test can move ahead (`test/support/clock-jump.mjs`). */
function clockJump(): {
  env: Record<string, string>;
  flags: string[];
  to(child: Child, ms: number): void;
} {
  const file = join(mkdtempSync(join(tmpdir(), 'plant-store-clock-')), 'offset');
  writeFileSync(file, '0');
  return {
    env: { TEST_CLOCK_FILE: file },
    flags: ['--import', CLOCK_JUMP],
    to(child, ms) {
      writeFileSync(file, String(ms));
      child.process.kill('SIGUSR2');
    },
  };
}

interface JwksReadiness {
  readonly ready: boolean;
  readonly keys: string;
  readonly ageMs?: number;
  readonly lastFetch?: { readonly ok: boolean; readonly ageMs: number; readonly error?: string };
}

/** `GET /readyz`: its status and its JWKS check. */
async function readyz(admin: string): Promise<{ status: number; jwks: JwksReadiness }> {
  const response = await withDeadline(fetch(`${admin}/readyz`), 'GET /readyz');
  const body = (await response.json()) as { details: { jwks: JwksReadiness } };
  return { status: response.status, jwks: body.details.jwks };
}

/** Polls `/readyz` until its JWKS check satisfies `done` (the clock jump is a signal away). */
async function readyzUntil(
  admin: string,
  done: (jwks: JwksReadiness) => boolean,
): Promise<{ status: number; jwks: JwksReadiness }> {
  const started = performance.now();
  for (;;) {
    const answer = await readyz(admin);
    if (done(answer.jwks)) return answer;
    assert.ok(
      performance.now() - started < 5_000,
      `readyz never got there: ${JSON.stringify(answer)}`,
    );
    await delay(10);
  }
}

/** A URL on a port nothing listens on: a JWKS server that is down. */
async function downUrl(): Promise<string> {
  const jwks = await serveJwks([]);
  await jwks.close();
  return jwks.url;
}

describe('plant-store CLI in JWT mode', () => {
  const children: Child[] = [];
  let jwks: JwksServer;
  let rsaKey: PrivateKey;
  let rsaPublic: Awaited<ReturnType<typeof generateKeyPair>>['publicKey'];
  let ecKey: PrivateKey;

  before(async () => {
    const rsa = await generateKeyPair('RS256');
    const ec = await generateKeyPair('ES256');
    rsaKey = rsa.privateKey;
    rsaPublic = rsa.publicKey;
    ecKey = ec.privateKey;
    jwks = await serveJwks([
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ]);
  });
  after(async () => {
    for (const child of children) child.kill();
    await jwks?.close();
  });

  function jwtEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PORT: '0',
      PLANT_STORE_JWKS_URL: jwks.url,
      PLANT_STORE_JWT_ISSUER: ISSUER,
      PLANT_STORE_JWT_AUDIENCE: AUDIENCE,
      ...extra,
    };
  }

  async function startServer(
    env: Record<string, string>,
    nodeFlags: readonly string[] = [],
  ): Promise<{ child: Child; url: string }> {
    const child = startCli(env, children, nodeFlags);
    const [, url] = await child.line(READY, 'the readiness line');
    return { child, url: url as string };
  }

  function token(
    claims: Record<string, unknown> = {},
    key: { alg: string; kid: string; privateKey: PrivateKey } = {
      alg: 'RS256',
      kid: 'rsa-1',
      privateKey: rsaKey,
    },
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now + 300, sub: 'tester', ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .sign(key.privateKey);
  }

  async function create(url: string, bearer: string, id = 1) {
    const response = await postPlant(url, bearer, { id, name: 'Monstera' });
    const wwwAuthenticate = response.headers.get('www-authenticate');
    return { status: response.status, wwwAuthenticate, body: await assertMatchesOpenApi(response) };
  }

  it('accepts valid tokens, prints no token line and is ready with the JWKS fetched when the JWKS settings are set', async () => {
    // A query may carry a key server's API key: it is never echoed.
    const { child, url } = await startServer(
      jwtEnv({
        PLANT_STORE_ADMIN_PORT: '0',
        PLANT_STORE_DRAIN_MS: '0',
        PLANT_STORE_JWKS_URL: `${jwks.url}?key=s3cret`,
      }),
    );
    const admin = /"admin":"(http:[^"]+)"/.exec(child.stdout())?.[1];
    assert.match(
      child.stdout(),
      /"auth":"JWT \(keys from http:\/\/127\.0\.0\.1:\d+\/jwks\.json\?\*\*\*,/,
    );
    const ready = await fetch(`${admin}/readyz`);
    const body = (await ready.json()) as { details: { jwks: JwksReadiness } };
    assert.equal(ready.status, 200);
    assert.equal(typeof body.details.jwks.ageMs, 'number');
    assert.equal(body.details.jwks.lastFetch?.ok, true);
    assert.deepEqual(body, {
      status: 'ready',
      checks: { shutdown: true, storage: true, jwks: true },
      details: {
        jwks: {
          ready: true,
          keys: 'fresh',
          ageMs: body.details.jwks.ageMs,
          lastFetch: body.details.jwks.lastFetch,
        },
      },
    });
    assert.deepEqual(await create(url, await token()), {
      status: 200,
      wwwAuthenticate: null,
      body: { name: 'Monstera' },
    });
    const es256 = await token({}, { alg: 'ES256', kid: 'ec-1', privateKey: ecKey });
    assert.equal((await create(url, es256)).status, 200);
    const plainLines = child
      .stdout()
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('{'));
    assert.deepEqual(plainLines.length, 1, child.stdout());
    assert.doesNotMatch(child.stdout(), /^plant-store token:/m);
    assert.doesNotMatch(child.stdout(), /s3cret/);
    child.process.kill('SIGTERM');
    assert.equal(await child.exited, 0);
    assert.equal(child.stderr(), '');
  });

  it('answers 401 invalid_token when a token is expired, for another audience or issuer, or not a JWT', async () => {
    const { url } = await startServer(jwtEnv());
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string> = {
      expired: await token({ exp: now - 120 }),
      'wrong audience': await token({ aud: 'someone-else' }),
      'wrong issuer': await token({ iss: 'https://evil.test/' }),
      'no exp': await token({ exp: undefined }),
      'not a JWT': 'opaque-token',
    };
    for (const [what, bearer] of Object.entries(cases)) {
      const answer = await create(url, bearer);
      assert.equal(answer.status, 401, what);
      assert.equal(
        answer.wwwAuthenticate,
        'Bearer realm="plant-store", error="invalid_token"',
        what,
      );
    }
  });

  it('answers 401 invalid_token for a key outside PLANT_STORE_JWT_ALGORITHMS when it is set', async () => {
    const { url } = await startServer(jwtEnv({ PLANT_STORE_JWT_ALGORITHMS: ' ES256 ' }));
    const es256 = await token({}, { alg: 'ES256', kid: 'ec-1', privateKey: ecKey });
    assert.equal((await create(url, es256)).status, 200);
    const rs256 = await create(url, await token(), 2);
    assert.equal(rs256.status, 401);
    assert.match(rs256.wwwAuthenticate ?? '', /error="invalid_token"/);
  });

  it('answers 500 with the Error body, never a pass, when the JWKS server goes down, and logs it once', async () => {
    const rotating = await generateKeyPair('RS256');
    const own = await serveJwks([
      {
        ...(await exportJWK((await generateKeyPair('RS256')).publicKey)),
        kid: 'old',
        alg: 'RS256',
      },
    ]);
    const clock = clockJump();
    const { child, url } = await startServer(
      jwtEnv({ PLANT_STORE_JWKS_URL: own.url, ...clock.env }),
      clock.flags,
    );
    await own.close();
    // Past the 30 s cooldown, a kid the cached JWKS lacks makes the verifier fetch it again,
    // from a server now down.
    clock.to(child, 31_000);
    await delay(100);
    const bearer = await token({}, { alg: 'RS256', kid: 'new', privateKey: rotating.privateKey });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await postPlant(url, bearer, { id: 10 + i, name: 'Monstera' });
      ids.push(response.headers.get('x-request-id') ?? '');
      assert.deepEqual(
        { status: response.status, body: await assertMatchesOpenApi(response) },
        { status: 500, body: { error: 500, message: 'internal error' } },
      );
    }
    assert.equal(child.process.exitCode, null, 'the server is still running');
    await delay(100);
    const errors = child
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string; requestId?: string })
      .filter((line) => line.level === 'error');
    assert.equal(errors.length, 1, 'the same failure is logged once, then summarised');
    assert.equal(errors[0]?.requestId, ids[0], "the error line names the request's id");
  });

  it('keeps serving with the last good keys through a JWKS outage, says stale in /readyz, then 503 past 24 h', async () => {
    const own = await serveJwks([
      { ...(await exportJWK(rsaPublic)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    ]);
    try {
      const clock = clockJump();
      const { child, url } = await startServer(
        jwtEnv({ PLANT_STORE_JWKS_URL: own.url, PLANT_STORE_ADMIN_PORT: '0', ...clock.env }),
        clock.flags,
      );
      const admin = /"admin":"(http:[^"]+)"/.exec(child.stdout())?.[1] as string;
      assert.equal((await readyz(admin)).jwks.keys, 'fresh');
      assert.equal(own.requests, 1);

      // Down for 11 minutes, past the 10-minute cache age. Before, each create fetched the JWKS
      // again and answered 500, and /readyz said jwks: true throughout.
      own.down = true;
      clock.to(child, 11 * MINUTE);
      const stale = await readyzUntil(admin, (jwks) => jwks.lastFetch?.ok === false);
      assert.equal(stale.status, 200);
      assert.equal(stale.jwks.ready, true);
      assert.equal(stale.jwks.keys, 'stale');
      assert.ok((stale.jwks.ageMs ?? 0) >= 11 * MINUTE);
      // The admin port needs no credentials: the fetch error's text goes to the log only.
      assert.deepEqual(Object.keys(stale.jwks.lastFetch ?? {}).sort(), ['ageMs', 'ok']);
      const logged =
        /"check":"jwks","error":\{"name":"Error","message":"the last JWKS fetch failed: Expected 200 OK/;
      await withDeadline(
        (async () => {
          while (!logged.test(child.stdout())) await delay(20);
        })(),
        'the fetch error in the log',
      );
      const bearer = await token();
      const statuses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => postPlant(url, bearer, { id: 100 + i, name: 'Fern' })),
      );
      assert.deepEqual(new Set(statuses.map((response) => response.status)), new Set([200]));
      assert.equal(own.requests, 2, 'one background fetch, none per request');

      // Past 24 hours the keys are too old to serve: /readyz says so, and tokens cannot be checked.
      clock.to(child, 24 * HOUR + MINUTE);
      const expired = await readyzUntil(admin, (jwks) => jwks.keys === 'expired');
      assert.equal(expired.status, 503);
      assert.equal(expired.jwks.ready, false);
      assert.equal((await postPlant(url, bearer, { id: 200, name: 'Fern' })).status, 500);

      // The key server answers again: the next refetch brings the keys back.
      own.down = false;
      clock.to(child, 24 * HOUR + 2 * MINUTE);
      const back = await readyzUntil(admin, (jwks) => jwks.keys === 'fresh');
      assert.equal(back.status, 200);
      assert.equal((await postPlant(url, bearer, { id: 201, name: 'Fern' })).status, 200);
    } finally {
      await own.close();
    }
  });

  it('exits 1 with one line, listening on nothing, when the JWKS cannot be fetched at start', async () => {
    const down = `${await downUrl()}?key=s3cret`;
    const child = startCli(jwtEnv({ PLANT_STORE_JWKS_URL: down }), children);
    const stderr = await exitsWithOneLine(child, 1, 'the JWKS down at start');
    assert.match(
      stderr,
      /^plant-store: cannot fetch the JWKS at http:\/\/127\.0\.0\.1:\d+\/jwks\.json\?\*\*\*: /,
    );
    assert.doesNotMatch(stderr, /s3cret/);
  });

  it('exits 2 with one line on stderr and listens on nothing when the JWT settings are bad', async () => {
    const url = 'http://127.0.0.1:9/jwks.json';
    const full = {
      PLANT_STORE_JWKS_URL: url,
      PLANT_STORE_JWT_ISSUER: ISSUER,
      PLANT_STORE_JWT_AUDIENCE: AUDIENCE,
    };
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...full, PLANT_STORE_TOKENS: 'tok' }, /exclude each other/],
      [{ PLANT_STORE_TOKENS: 'tok', PLANT_STORE_JWT_ISSUER: ISSUER }, /exclude each other/],
      [{ PLANT_STORE_JWT_ISSUER: ISSUER }, /^PLANT_STORE_JWT_ISSUER needs PLANT_STORE_JWKS_URL/],
      [{ PLANT_STORE_JWT_AUDIENCE: AUDIENCE }, /^PLANT_STORE_JWT_AUDIENCE needs/],
      [{ PLANT_STORE_JWKS_URL: url }, /^PLANT_STORE_JWKS_URL needs both/],
      [{ PLANT_STORE_JWKS_URL: url, PLANT_STORE_JWT_ISSUER: ISSUER }, /needs both/],
      [{ PLANT_STORE_JWKS_URL: url, PLANT_STORE_JWT_AUDIENCE: AUDIENCE }, /needs both/],
      [{ ...full, PLANT_STORE_JWKS_URL: 'ftp://id.test/jwks' }, /must be an http or https URL/],
      [{ ...full, PLANT_STORE_JWT_ALGORITHMS: '' }, /holds no algorithm/],
      [{ ...full, PLANT_STORE_JWT_ALGORITHMS: 'RS256,none' }, /^bad JWT settings: .*"none"/],
      [{ ...full, PLANT_STORE_JWT_ALGORITHMS: 'HS256' }, /^bad JWT settings: .*HS256/],
      [{ ...full, PLANT_STORE_JWT_ALGORITHMS: 'RS256, FOO' }, /^bad JWT settings: .*"FOO"/],
    ];
    await eachFewAtATime(cases, async ([env, pattern]) => {
      const what = JSON.stringify(env);
      const child = startCli({ PORT: '0', ...env }, children);
      const stderr = await exitsWithOneLine(child, 2, what);
      assert.match(stderr.slice('plant-store: '.length), pattern, what);
    });
  });

  it('exits 1 with one line naming jose when JWT mode is set and jose is not installed', async () => {
    const child = startCli(jwtEnv({ TEST_HIDE_PACKAGES: 'jose' }), children, [
      '--import',
      HIDE_PACKAGES,
    ]);
    const stderr = await exitsWithOneLine(child, 1, 'jose hidden');
    assert.match(stderr, /^plant-store: JWT mode needs the "jose" package[^\n]*npm install jose/);
  });
});
