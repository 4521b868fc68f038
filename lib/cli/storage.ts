/**
 * Where the standalone server keeps plants: in memory (up to `PLANT_STORE_MAX_PLANTS`), or in
 * PostgreSQL through a `pg` pool when `DATABASE_URL` is set, its table prepared before anything
 * listens. Also how readiness asks the database, and how the pool closes on shutdown.
 *
 * @module
 */

import type pg from 'pg';
import type { PlantRepository } from '../index.ts';
import type { ReadinessResult } from './admin-server.ts';
import { createMemoryRepository } from '../index.ts';
import { fail, oneLine } from './fail.ts';
import { loadPostgres, type PostgresModules } from './load-optional.ts';
import type { Logger } from './logger.ts';
import type { Settings } from './settings.ts';

/** How long shutdown waits for the pool to close once the server has drained. */
const POOL_END_TIMEOUT_MS = 5_000;
/** How long the readiness check waits for the database's answer. */
const READY_QUERY_TIMEOUT_MS = 1_000;
/** The readiness check: a standby (or a read-only default) answers but cannot store a plant. */
const READY_SQL = "SELECT current_setting('transaction_read_only') AS read_only";

/**
 * The pool's limits, all below the store's 10 s deadline, so a lost or stalled database becomes
 * an answer at once (`503` with `Retry-After`, the repository's `ERR_STORE_UNAVAILABLE`) and a
 * freed connection rather than a request held until the deadline and a connection held for ever.
 * See https://node-postgres.com/apis/pool and /apis/client.
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

/** The storage, with what the rest of the server needs of it. */
export interface Storage {
  readonly repository: PlantRepository;
  /** The pool, for metrics; `undefined` in memory. */
  readonly pool: pg.Pool | undefined;
  /** Whether the store can serve now: the database answers (it rejects with why not). */
  readonly ready: () => Promise<ReadinessResult>;
  /** Closes what it holds; a pool that will not end does not hold the exit. */
  readonly close: () => Promise<void>;
  /** What the start-up line says of it: never the URL's password. */
  readonly description: string;
}

/**
 * Opens the storage the settings ask for; for PostgreSQL, loads `pg`, opens the pool and makes
 * sure the plants table exists and fits. Prints one line and exits 1 on failure.
 */
export async function openStorage(settings: Settings, log: Logger): Promise<Storage> {
  if (settings.storage.kind === 'memory') {
    const { maxPlants } = settings.limits;
    return {
      repository: createMemoryRepository({ maxPlants }),
      pool: undefined,
      ready: async () => ({ ok: true }),
      close: async () => {},
      description: maxPlants === undefined ? 'memory' : `memory (at most ${maxPlants} plants)`,
    };
  }
  const url = settings.storage.url;
  let modules: PostgresModules;
  try {
    modules = await loadPostgres();
  } catch (error) {
    fail(
      1,
      `DATABASE_URL needs the "pg" package, which cannot be loaded (install it: npm install pg): ${oneLine(error)}`,
    );
  }
  const { pg: driver, repository: postgres } = modules;
  const pool = new driver.Pool({
    connectionString: url,
    application_name: 'plant-store',
    max: settings.limits.pgPoolMax,
    ...POOL_LIMITS,
  });
  // An idle connection the server or the network dropped: the pool discards it and opens a new
  // one on demand. Without this listener the 'error' event would crash the process.
  pool.on('error', (error) => log.error(error));
  try {
    await postgres.ensurePlantTable(pool);
  } catch (error) {
    // The driver's message only (never the URL, which may hold a password, nor a stack).
    fail(1, `cannot prepare the database: ${oneLine(error)}`);
  }
  const where = new URL(url);
  return {
    repository: postgres.createPostgresRepository(pool, {
      maxBatchSize: settings.limits.pgMaxBatch,
      maxInFlight: settings.limits.pgMaxInFlight,
      prepare: settings.limits.pgPrepare,
    }),
    pool,
    ready: () =>
      pool
        .query({ text: READY_SQL, query_timeout: READY_QUERY_TIMEOUT_MS } as pg.QueryConfig)
        .then((result: pg.QueryResult<{ read_only?: unknown }>) =>
          result.rows[0]?.read_only === 'off'
            ? { ok: true }
            : { ok: false, error: new Error('the database is read-only (a standby?)') },
        ),
    close: () => withTimeout(pool.end(), POOL_END_TIMEOUT_MS),
    description: `PostgreSQL (${where.hostname}${where.port === '' ? '' : `:${where.port}`}${where.pathname})`,
  };
}

/** Waits for `promise`, but no longer than `ms`; a rejection counts as done. */
async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => {}), late]);
  clearTimeout(timer);
}
