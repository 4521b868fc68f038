import type {
  CreatePlantOutcome,
  NewPlant,
  PlantRepository,
  PlantRepositoryContext,
} from '../types.ts';
import { CreateBatches } from './postgres-batches.ts';
import { hearErrors, hearNewConnections, isLoneConnection, isPool } from './postgres-loan.ts';
import {
  assertClient,
  type PostgresClient,
  type PostgresTableOptions,
  type PreparingPostgresClient,
  qualifiedTableName,
} from './postgres-shared.ts';

/** Options of `createPostgresRepository`. */
export interface CreatePostgresRepositoryOptions extends PostgresTableOptions {
  /**
   * The most creates one statement carries, from 1 to 10,000: creates that arrive while
   * `maxInFlight` statements are in flight wait and go together in the next one.
   * @default 100
   */
  readonly maxBatchSize?: number | undefined;
  /**
   * The most statements in flight at once, from 1 to 1,000; keep it at or below the pool's size.
   * A lone `pg` `Client` runs one statement at a time: with it, only 1.
   * @default 4 (1 with a lone `Client`)
   */
  readonly maxInFlight?: number | undefined;
  /**
   * Names each statement, `query({ name, text, values })`, so that `pg` prepares it once per
   * connection (not for PGlite). Behind a pooler that loses prepared statements, the first
   * refusal turns it off.
   * @default false
   */
  readonly prepare?: boolean | undefined;
}

/** The PostgreSQL `PlantRepository`: its `create` always answers with a promise. */
export interface PostgresPlantRepository extends PlantRepository {
  /** Stores the plant, or finds the one stored under its id; rejects on a database error. */
  create(plant: NewPlant, context: PlantRepositoryContext): Promise<CreatePlantOutcome>;
}

/** The default `maxBatchSize`: the most creates one statement carries. */
export const DEFAULT_MAX_BATCH_SIZE = 100;
const MAX_MAX_BATCH_SIZE = 10_000;
/** The default `maxInFlight`: the most statements of creates in flight at once. */
export const DEFAULT_MAX_IN_FLIGHT = 4;
const MAX_MAX_IN_FLIGHT = 1_000;

/**
 * Creates a `PlantRepository` on a PostgreSQL table (see `ensurePlantTable`).
 *
 * A create is sent at once while fewer than `maxInFlight` statements are in flight; the creates
 * that arrive meanwhile share the next statement, up to `maxBatchSize`, each keeping its exact
 * outcome. Ids stay exact over the whole int64 range. When the database is unavailable (down,
 * a standby, out of connections, or too busy: `statement_timeout`, `lock_timeout`), creates
 * reject with `ERR_STORE_UNAVAILABLE` (`503`). A fired signal stops a create that is not yet
 * sent; a query already sent is not cancelled, so bound it with `statement_timeout`.
 *
 * A lone `pg` `Client` gets one statement in flight at a time, and its `'error'` is listened to:
 * once its connection drops, every create is `ERR_STORE_UNAVAILABLE`, since a `Client` never
 * reconnects. A long-running server wants a `Pool`.
 *
 * @param client A `pg` `Pool` (recommended), a `pg` `Client`, PGlite, or any `PostgresClient`.
 * @param options Where the table is, the batch bounds and `prepare`.
 * @returns The repository.
 * @throws {TypeError} When `client` has no `query` method, an option is unknown or invalid, or
 * `maxInFlight` is above 1 for a lone `Client`.
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createPostgresRepository, ensurePlantTable } from 'plant-store/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await ensurePlantTable(pool);
 * const repository = createPostgresRepository(pool, { prepare: true });
 * const store = createPlantStore({ repository, verifier: createStaticTokenVerifier(['s3cr3t']) });
 * ```
 */
export function createPostgresRepository(
  client: PostgresClient & PreparingPostgresClient,
  options?: CreatePostgresRepositoryOptions,
): PostgresPlantRepository;
/** A client that takes only `query(text, values)` (PGlite, say): `prepare` stays off. */
export function createPostgresRepository(
  client: PostgresClient,
  options?: CreatePostgresRepositoryOptions & { readonly prepare?: false | undefined },
): PostgresPlantRepository;
export function createPostgresRepository(
  client: PostgresClient,
  options: CreatePostgresRepositoryOptions = {},
): PostgresPlantRepository {
  const caller = 'createPostgresRepository';
  assertClient(client, caller);
  const table = qualifiedTableName(options, caller, [
    'table',
    'schema',
    'maxBatchSize',
    'maxInFlight',
    'prepare',
  ]);
  const { prepare = false } = options;
  if (typeof prepare !== 'boolean') {
    throw new TypeError('createPostgresRepository: option prepare must be true or false');
  }
  const maxBatchSize = integerOption(
    options,
    'maxBatchSize',
    DEFAULT_MAX_BATCH_SIZE,
    MAX_MAX_BATCH_SIZE,
  );
  // One connection runs one statement at a time: more would queue inside the driver, where a
  // create whose deadline passed could no longer be held back (and pg deprecates that queue).
  const lone = isLoneConnection(client);
  const maxInFlight = integerOption(
    options,
    'maxInFlight',
    lone ? 1 : DEFAULT_MAX_IN_FLIGHT,
    MAX_MAX_IN_FLIGHT,
  );
  if (lone) {
    if (maxInFlight > 1) {
      throw new TypeError(
        'createPostgresRepository: a lone pg Client runs one statement at a time, so option maxInFlight must be 1 with it; pass a Pool for more',
      );
    }
    hearErrors(client);
  } else if (isPool(client)) {
    hearNewConnections(client);
  }
  const batches = new CreateBatches(client, table, { maxBatchSize, maxInFlight, prepare });
  return {
    create: (plant, context) => batches.create(plant, context?.signal),
  };
}

function integerOption(
  options: CreatePostgresRepositoryOptions,
  name: 'maxBatchSize' | 'maxInFlight',
  fallback: number,
  max: number,
): number {
  const value = options[name];
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new TypeError(
      `createPostgresRepository: option ${name} must be an integer from 1 to ${max}`,
    );
  }
  return value;
}
