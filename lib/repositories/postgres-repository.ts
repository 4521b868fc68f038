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
  Plant,
  PlantRepository,
  PlantRepositoryContext,
} from '../types.ts';
import {
  assertClient,
  type PostgresClient,
  type PostgresTableOptions,
  qualifiedTableName,
  rowsOf,
} from './postgres-shared.ts';

/** Options of `createPostgresRepository`. */
export interface CreatePostgresRepositoryOptions extends PostgresTableOptions {}

/** The PostgreSQL `PlantRepository`: its `create` always answers with a promise. */
export interface PostgresPlantRepository extends PlantRepository {
  create(plant: NewPlant, context: PlantRepositoryContext): Promise<CreatePlantOutcome>;
}

// Insert, then read: a row deleted between the two is retried this many times in all.
const MAX_ATTEMPTS = 3;
/**
 * Creates a `PlantRepository` that stores plants in a PostgreSQL table (see `ensurePlantTable`).
 *
 * A create is decided by the database, so it stays atomic across connections, processes and
 * machines: `INSERT ... ON CONFLICT (id) DO NOTHING RETURNING` stores a new plant; when it
 * returns no row, a separate `SELECT` reads the plant already stored. Under READ COMMITTED each
 * statement takes a fresh snapshot, and the insert only reports a conflict once the conflicting
 * row is committed, so the read sees it. (One statement that inserts and reads, a CTE, shares one
 * snapshot and can miss that row.) If the row is deleted between the two statements, the insert
 * is tried again, up to 3 times in all; then the create rejects.
 *
 * ids travel as decimal text cast to `bigint`, so they are exact over the whole int64 range; a
 * plant without a tag is stored with a `NULL` tag and comes back without one; `''` stays `''`.
 * Every value is a parameter; the table and schema names are quoted identifiers.
 *
 * The signal: already aborted, `create` rejects with `signal.reason` before any query; firing
 * mid-create, it rejects at once with `signal.reason` and issues no further query. A query already
 * sent is not cancelled (`query(text, values)` offers no way to), so it may still land, which is
 * harmless: a retry is an idempotent replay. Bound server-side time with PostgreSQL's
 * `statement_timeout` (for `pg`, the `Pool` option of that name). Driver errors propagate as they
 * are (the store answers `500`).
 *
 * @param client The driver: a `pg` `Pool` (recommended), a `pg` `Client`, PGlite, or any
 *   `PostgresClient`.
 * @param options Where the table is.
 * @returns The repository.
 * @throws {TypeError} When `client` has no `query` method, `table` or `schema` is empty,
 *   contains U+0000 or is longer than 63 bytes, or an option's name is not `table` or `schema`.
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createPostgresRepository, ensurePlantTable } from 'plant-store/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await ensurePlantTable(pool);
 * const repository = createPostgresRepository(pool);
 * const store = createPlantStore({ repository, verifier: createStaticTokenVerifier(['t0ken']) });
 * ```
 */
export function createPostgresRepository(
  client: PostgresClient,
  options: CreatePostgresRepositoryOptions = {},
): PostgresPlantRepository {
  assertClient(client, 'createPostgresRepository');
  const table = qualifiedTableName(options, 'createPostgresRepository');
  const insertSql = `INSERT INTO ${table} (id, name, tag) VALUES ($1::bigint, $2::text, $3::text) ON CONFLICT (id) DO NOTHING RETURNING true AS created`;
  // Each text comes back behind a one-character marker that `toPlant` cuts off: some drivers
  // (PGlite 0.5, through a default `TextDecoder`) drop a leading U+FEFF from every text value,
  // which would turn an idempotent replay into a 409. NULL || '.' stays NULL.
  const selectSql = `SELECT '.' || name AS name, '.' || tag AS tag FROM ${table} WHERE id = $1::bigint`;

  return {
    async create(plant: NewPlant, context): Promise<CreatePlantOutcome> {
      const signal = context?.signal;
      // Text, never a JS number: a double cannot hold every int64.
      const id = String(plant.id);
      const insertValues = [id, plant.name, plant.tag ?? null];
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const inserted = await run(client, insertSql, insertValues, signal);
        if (inserted.length > 0) return { created: true };
        // A separate statement, hence a fresh READ COMMITTED snapshot that sees the row the insert
        // conflicted with: do not fold this into the insert as a CTE.
        const found = await run(client, selectSql, [id], signal);
        const row = found[0];
        if (row !== undefined) return { created: false, existing: toPlant(row) };
        // Deleted between the two statements: the id is free again, so insert once more.
      }
      throw new Error(
        `plant-store/postgres: the plant under id ${id} was deleted during every one of ${MAX_ATTEMPTS} attempts to create it`,
      );
    },
  };
}

/** Runs one statement, rejecting with `signal.reason` before it starts or as soon as it fires. */
function run(
  client: PostgresClient,
  text: string,
  values: unknown[],
  signal: AbortSignal | undefined,
): Promise<readonly unknown[]> {
  if (signal === undefined) return client.query(text, values).then(rowsOf);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // The query keeps running after an abort (nothing here can cancel it); its late result or
    // error is settled into an already-settled promise and so ignored, never unhandled.
    Promise.resolve()
      .then(() => client.query(text, values))
      .then(rowsOf)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function toPlant(row: unknown): Plant {
  const { name, tag } = (row ?? {}) as { name?: unknown; tag?: unknown };
  if (!isMarked(name) || (tag !== null && !isMarked(tag))) {
    throw new TypeError('plant-store/postgres: the plants table returned a row of the wrong shape');
  }
  // A NULL tag is a plant created without one: the key is left out, not set to undefined.
  return tag === null ? { name: name.slice(1) } : { name: name.slice(1), tag: tag.slice(1) };
}

function isMarked(text: unknown): text is string {
  return typeof text === 'string' && text.startsWith('.');
}
