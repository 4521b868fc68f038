/**
 * Where the standalone server keeps plants: in memory, or in PostgreSQL through a `pg` pool
 * whose table is prepared before anything listens.
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

const POOL_END_TIMEOUT_MS = 5_000;
const READY_QUERY_TIMEOUT_MS = 1_000;
// A standby (or a read-only default) answers but cannot store a plant.
const READY_SQL = "SELECT current_setting('transaction_read_only') AS read_only";

/**
 * Below the store's deadline, so that a lost or stalled database becomes a `503` and a freed
 * connection, not a request held until the deadline and a connection held for ever
 * (https://node-postgres.com/apis/pool, /apis/client).
 */
const POOL_LIMITS = {
  connectionTimeoutMillis: 5_000,
  // PostgreSQL itself cancels a statement that runs longer (a lock wait, say).
  statement_timeout: 5_000,
  query_timeout: 8_000,
  keepAlive: true,
} as const;

export interface Storage {
  readonly repository: PlantRepository;
  /** For metrics; `undefined` in memory. */
  readonly pool: pg.Pool | undefined;
  readonly ready: () => Promise<ReadinessResult>;
  /** A pool that will not end does not hold the exit. */
  readonly close: () => Promise<void>;
  /** For the start-up line: never the URL's password. */
  readonly description: string;
}

/** Exits 1 when `pg` cannot be loaded or the table cannot be prepared. */
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
  const { url, table } = settings.storage;
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
  // An idle connection dropped: the pool replaces it. Unheard, the event would end the process.
  pool.on('error', (error) => log.error(error));
  try {
    await postgres.ensurePlantTable(pool, { table });
  } catch (error) {
    // The driver's message only: never the URL, which may hold a password.
    fail(1, `cannot prepare the database: ${oneLine(error)}`);
  }
  const where = new URL(url);
  return {
    repository: postgres.createPostgresRepository(pool, {
      table,
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

/** A rejection counts as done. */
async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => {}), late]);
  clearTimeout(timer);
}
