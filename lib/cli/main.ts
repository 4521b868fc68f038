/**
 * The standalone server (`npm start`, the `plant-store` bin): the plant store over `node:http`,
 * with the interactive API reference at `/docs`,
 * with plants in memory or, when `DATABASE_URL` is set, in PostgreSQL through `pg`; bearer tokens
 * from a fixed list or, in JWT mode, checked against a JWKS through jose.
 *
 * Settings come from the environment (see `settings.ts`). Bad settings print one line on stderr
 * and exit 2 before anything listens. `pg` and jose are loaded only when a setting asks for them;
 * a missing one, or a database that cannot be reached or prepared at start, prints one line and
 * exits 1, and nothing listens. Ready, it prints `plant-store listening on http://HOST:PORT`
 * (and, when it generated the token, `plant-store token: <token>` first). `SIGINT`/`SIGTERM` stop
 * accepting, let in-flight requests finish (up to 10 s), close the database pool and exit 0; a
 * second signal cuts what is left at once.
 *
 * @module
 */

import type pg from 'pg';
import { withDocs } from '../docs.ts';
import type { PlantRepository, TokenVerifier } from '../index.ts';
import { createMemoryRepository, createPlantStore, createStaticTokenVerifier } from '../index.ts';
import { createCors } from '../cors.ts';
import type { JwtAlgorithm } from '../jwt.ts';
import { type ServeHandle, serve } from '../node.ts';
import { loadJwtVerifier, loadPostgres, type PostgresModules } from './load-optional.ts';
import { type AuthSettings, parseSettings } from './settings.ts';

const SHUTDOWN_TIMEOUT_MS = 10_000;
/** How long shutdown waits for the pool to close once the server has drained. */
const POOL_END_TIMEOUT_MS = 5_000;

/**
 * The pool's limits, all below the store's 10 s deadline, so a lost or stalled database becomes
 * an error (`500`) and a freed connection rather than a request held until the deadline (`503`)
 * and a connection held for ever. See https://node-postgres.com/apis/pool and /apis/client.
 */
const POOL_LIMITS = {
  /** Opening a connection, or waiting for a free one, fails after this. */
  connectionTimeoutMillis: 5_000,
  /** PostgreSQL itself cancels a statement that runs longer (a lock wait, say). */
  statement_timeout: 5_000,
  /** The client gives up on an answer after this (the server or the network is gone). */
  query_timeout: 8_000,
  /** TCP keep-alive, so a connection to a vanished host is found dead. */
  keepAlive: true,
} as const;

const onError = (error: unknown): void => {
  console.error('plant-store: unexpected error:', error);
};

const parsed = parseSettings(process.env);
if (!parsed.ok) fail(2, parsed.error);
const { settings } = parsed;

let pool: pg.Pool | undefined;
let handle: ServeHandle | undefined;
let stopping = false;
let drained = false;
const stop = (): void => {
  if (stopping) {
    // A second signal: stop waiting for in-flight requests, or for the pool.
    if (drained) process.exit(0);
    handle?.server.closeAllConnections();
    return;
  }
  stopping = true;
  // Nothing listens yet: nothing to drain, and an opening pool dies with the process.
  if (handle === undefined) process.exit(0);
  handle
    .close()
    .then(() => {
      drained = true;
      return closePool(pool);
    })
    .finally(() => process.exit(0));
};
// Installed before the database and the listener, so a signal during start-up ends cleanly.
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const { verifier, generatedToken } = await createVerifier(settings.auth);
const repository =
  settings.storage.kind === 'postgres'
    ? await openPostgres(settings.storage.url)
    : createMemoryRepository();

const cors = settings.cors === undefined ? undefined : createCors(settings.cors);
const store = createPlantStore({ repository, verifier, onError, cors });

try {
  handle = await serve({
    // The reference page at /docs; /plants keeps the Node adapter's fast path.
    fetch: withDocs(store.fetch),
    port: settings.port,
    host: settings.host,
    onError,
    shutdownTimeout: SHUTDOWN_TIMEOUT_MS,
  });
} catch (error) {
  fail(1, `cannot listen on ${settings.host}:${settings.port}: ${oneLine(error)}`);
}

if (generatedToken !== undefined) process.stdout.write(`plant-store token: ${generatedToken}\n`);
process.stdout.write(`plant-store listening on ${handle.url}\n`);

/** The verifier the settings ask for; in JWT mode jose is loaded here, and only here. */
async function createVerifier(
  auth: AuthSettings,
): Promise<{ verifier: TokenVerifier; generatedToken?: string }> {
  if (auth.kind === 'tokens') return { verifier: createStaticTokenVerifier(auth.tokens) };
  if (auth.kind === 'random-token') {
    // Web Crypto rather than node:crypto: 32 random bytes, base64url (a valid RFC 6750 b64token).
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
    return { verifier: createStaticTokenVerifier([token]), generatedToken: token };
  }
  let jwt: Awaited<ReturnType<typeof loadJwtVerifier>>;
  try {
    jwt = await loadJwtVerifier();
  } catch (error) {
    fail(
      1,
      `JWT mode needs the "jose" package, which cannot be loaded (install it: npm install jose): ${oneLine(error)}`,
    );
  }
  try {
    const { jwksUrl, issuer, audience } = auth;
    // Names from the environment: createJwtVerifier checks each at run time.
    const algorithms = auth.algorithms as readonly JwtAlgorithm[] | undefined;
    return { verifier: jwt.createJwtVerifier({ jwksUrl, issuer, audience, algorithms }) };
  } catch (error) {
    // createJwtVerifier refuses what the settings parser cannot check without jose: `none`,
    // HMAC and unknown algorithm names. Its TypeError says which.
    fail(2, `bad JWT settings: ${oneLine(error)}`);
  }
}

/**
 * Loads `pg`, opens the pool and makes sure the plants table exists and fits; on any failure
 * prints one line and exits 1, before anything listens.
 */
async function openPostgres(url: string): Promise<PlantRepository> {
  let modules: PostgresModules;
  try {
    modules = await loadPostgres();
  } catch (error) {
    fail(
      1,
      `DATABASE_URL needs the "pg" package, which cannot be loaded (install it: npm install pg): ${oneLine(error)}`,
    );
  }
  try {
    const { pg: driver, repository: postgres } = modules;
    pool = new driver.Pool({
      connectionString: url,
      application_name: 'plant-store',
      ...POOL_LIMITS,
    });
    // An idle connection the server or the network dropped: the pool discards it and opens a new
    // one on demand. Without this listener the 'error' event would crash the process.
    pool.on('error', (error) => {
      process.stderr.write(`plant-store: lost an idle database connection: ${oneLine(error)}\n`);
    });
    await postgres.ensurePlantTable(pool);
    return postgres.createPostgresRepository(pool);
  } catch (error) {
    // The driver's message only (never the URL, which may hold a password, nor a stack).
    fail(1, `cannot prepare the database: ${oneLine(error)}`);
  }
}

/** Ends the pool once the server has drained; a pool that will not end does not hold the exit. */
async function closePool(toClose: pg.Pool | undefined): Promise<void> {
  if (toClose === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, POOL_END_TIMEOUT_MS);
  });
  await Promise.race([toClose.end().catch(() => {}), timeout]);
  clearTimeout(timer);
}

/** An error as one short line: its message (or code, or name), without a stack. */
function oneLine(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    // Node's AggregateError for a refused connection has an empty message; its code says it.
    const code = (error as { code?: unknown }).code;
    text = error.message || (typeof code === 'string' ? code : '') || error.name;
  } else {
    text = String(error);
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Prints one line on stderr and exits with `code`. */
function fail(code: number, message: string): never {
  process.stderr.write(`plant-store: ${message}\n`);
  process.exit(code);
}
