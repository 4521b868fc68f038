/**
 * The PostgreSQL `PlantRepository` behind `plant-store/postgres`. It imports no driver: hand it
 * anything with `query(text, values)` that resolves to `{ rows }`, such as a `pg` `Pool` or
 * `Client`, or a PGlite instance.
 *
 * @module
 */

import type {
  CreatePlantOutcome,
  NewPlant,
  PlantRepository,
  PlantRepositoryContext,
} from '../types.ts';
import { CreateBatches } from './postgres-batches.ts';
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
   * The most creates one statement carries: creates that arrive while a statement is in flight
   * wait and go together in the next one, this many at most. An integer from 1 (each create its
   * own statement) to 10,000.
   * @default 100
   */
  readonly maxBatchSize?: number | undefined;
  /**
   * The most statements of this repository in flight at once: a create is sent at once while
   * fewer are, and waits for the next batch otherwise. Keep it at or below the pool's size. An
   * integer from 1 to 1,000.
   * @default 4
   */
  readonly maxInFlight?: number | undefined;
  /**
   * Names each statement, so that the driver prepares it once per connection and later creates
   * skip PostgreSQL's parse and plan: the repository calls `query({ name, text, values })`, the
   * form `pg`'s `Pool` and `Client` take. Only for a client that takes that form (not PGlite).
   * Behind a pooler that does not keep prepared statements (PgBouncer in transaction mode
   * before 1.21, or without `max_prepared_statements`), the first statement PostgreSQL refuses
   * for that reason is sent again unnamed, and so is every later one.
   * @default false
   */
  readonly prepare?: boolean | undefined;
}

/** The PostgreSQL `PlantRepository`: its `create` always answers with a promise. */
export interface PostgresPlantRepository extends PlantRepository {
  create(plant: NewPlant, context: PlantRepositoryContext): Promise<CreatePlantOutcome>;
}

const DEFAULT_MAX_BATCH_SIZE = 100;
const MAX_MAX_BATCH_SIZE = 10_000;
const DEFAULT_MAX_IN_FLIGHT = 4;
const MAX_MAX_IN_FLIGHT = 1_000;

/**
 * Creates a `PlantRepository` that stores plants in a PostgreSQL table (see `ensurePlantTable`).
 *
 * Creates are batched. While fewer than `maxInFlight` statements of this repository are in
 * flight, a create is sent at once, alone. Once that many are, the creates that arrive wait, and
 * go together in the next statement, up to `maxBatchSize` of them: one round trip and one commit
 * for all of them. That statement is
 * `INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) ON CONFLICT (id) DO NOTHING RETURNING id`;
 * (a create sent alone is the same insert with one `VALUES` row); for the ids it did not insert, a
 * second statement reads the stored plants by primary key
 * (`WHERE id = ANY($1::bigint[])`). Under READ COMMITTED that read takes a fresh snapshot, and the
 * insert reports a conflict only once the conflicting row is committed, so the read sees it. Two
 * creates of one id in one batch send the id once: the first is stored, the second is answered
 * with the first's plant (a replay or a conflict, by content). A row deleted between the insert
 * and the read is inserted again, up to 3 attempts in all; then that create rejects. So every
 * create keeps its own exact outcome, across connections, processes and machines.
 *
 * If the batch statement fails on a bad row (SQLSTATE class 22 or 23), each of its creates is
 * sent again in a statement of its own, one after another on the same connection, so that one
 * create's bad row fails only that create and no more statements are in flight than
 * `maxInFlight`. If it fails because the database is unavailable (a failed socket, a connection
 * lost or never made, classes 08 and 53, 57P*, 25006 read-only: a standby), every create of the
 * batch rejects with one `PlantApiError` `ERR_STORE_UNAVAILABLE` (its `cause` the driver's error:
 * the store answers `503` with `Retry-After`); any other error rejects them all as it came (`500`).
 * Neither is sent again.
 *
 * ids travel as decimal text cast to `bigint`, so they are exact over the whole int64 range; a
 * plant without a tag is stored with a `NULL` tag and comes back without one; `''` stays `''`.
 * Every value is a parameter; the table and schema names are quoted identifiers. With
 * `prepare: true` each of these statements has a name, so that `pg` prepares it once per
 * connection rather than having PostgreSQL parse and plan it for every create.
 *
 * The signal: already aborted, `create` rejects with `signal.reason` before any query; firing
 * while the create waits for a batch, it rejects at once with `signal.reason` and the plant is
 * never sent; firing once it is sent, it issues no further query for it, and the create rejects
 * with `signal.reason` at once if it had waited for a batch, or when its statement answers if it
 * was sent at once (then it resolves instead if that statement stored the plant). A
 * query already sent is not cancelled (`query(text, values)` offers no way to), so it may still
 * land, which is harmless: a retry is an idempotent replay. Bound server-side time with
 * PostgreSQL's `statement_timeout` (for `pg`, the `Pool` option of that name). From a pool (a
 * `PostgresPool`, such as `pg`'s `Pool`) each batch borrows one connection, and a create whose
 * signal fired while the pool made it wait is not sent.
 *
 * A `name` or `tag` that is not well-formed UTF-16 (a lone surrogate, which PostgreSQL would
 * store as U+FFFD) rejects with a `TypeError` before any query.
 *
 * @param client The driver: a `pg` `Pool` (recommended), a `pg` `Client`, PGlite, or any
 *   `PostgresClient`.
 * @param options Where the table is, the batch bound, how many statements may be in flight, and
 *   whether the statements are named (`prepare`).
 * @returns The repository.
 * @throws {TypeError} When `client` has no `query` method, `table` or `schema` is empty,
 *   contains U+0000 or is longer than 63 bytes, `maxBatchSize` is not an integer from 1 to
 *   10,000, `maxInFlight` not one from 1 to 1,000, `prepare` not a boolean, or an option's
 *   name is not one of these.
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createPostgresRepository, ensurePlantTable } from 'plant-store/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await ensurePlantTable(pool);
 * const repository = createPostgresRepository(pool, { prepare: true });
 * const store = createPlantStore({ repository, verifier: createStaticTokenVerifier(['t0ken']) });
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
  const maxInFlight = integerOption(
    options,
    'maxInFlight',
    DEFAULT_MAX_IN_FLIGHT,
    MAX_MAX_IN_FLIGHT,
  );
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
