import { checkOptionNames } from '../guards/check-option-names.ts';
import { identifierProblem } from '../guards/postgres-identifier.ts';

/**
 * The driver the repository talks through, typed by shape: `pg`'s `Pool` and `Client`
 * ([node-postgres](https://node-postgres.com/apis/pool#poolquery)) and PGlite fit as they are.
 *
 * Use a pool or an autocommit client: each statement must run in its own READ COMMITTED
 * transaction, never inside one the caller holds open.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import type { PostgresClient } from 'plant-store/postgres';
 *
 * const client: PostgresClient = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * ```
 */
export interface PostgresClient {
  /** The query with `$1`-style parameters; resolves to the result rows, rejects on any error. */
  query(text: string, values?: unknown[]): Promise<{ readonly rows: readonly unknown[] }>;
}

/**
 * A driver that prepares named statements once per connection, as `pg`'s `Pool` and `Client` do
 * ([prepared statements](https://node-postgres.com/features/queries#prepared-statements)): what
 * `createPostgresRepository` needs with `prepare: true`.
 */
export interface PreparingPostgresClient {
  /** The named statement with `$1`-style parameters; resolves to the result rows. */
  query: (statement: {
    name: string;
    text: string;
    values: unknown[];
  }) => Promise<{ readonly rows: readonly unknown[] }>;
}

/**
 * A pool that lends connections, as `pg`'s `Pool` does, recognised by `connect` beside
 * `waitingCount`: the repository then borrows one connection per batch.
 */
export interface PostgresPool extends PostgresClient {
  /** Lends a connection, once one is free. */
  connect(): Promise<PostgresPoolConnection>;
  /** How many borrowers wait for a connection. */
  readonly waitingCount: number;
}

/** A connection a `PostgresPool` lent: `pg`'s `PoolClient`. */
export interface PostgresPoolConnection extends PostgresClient {
  /** Gives it back; given an error, the pool closes it instead of keeping it. */
  release(error?: Error | boolean): void;
  /** Listens to its `'error'` event: a connection that breaks while lent emits one. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops listening. */
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** Where the plants live: options of `createPostgresRepository` and `ensurePlantTable`. */
export interface PostgresTableOptions {
  /**
   * The table's name, up to 63 bytes of UTF-8; always quoted, so case-sensitive and never SQL.
   * @default 'plants'
   */
  readonly table?: string | undefined;
  /**
   * The schema holding the table, quoted like `table`; it must exist. Unset: the `search_path`.
   * @default undefined
   */
  readonly schema?: string | undefined;
}

/** The table `createPostgresRepository` and `ensurePlantTable` use when `table` is unset. */
export const DEFAULT_TABLE = 'plants';

const SQLSTATE = /^[0-9A-Z]{5}$/;

export function rowsOf(result: { readonly rows: readonly unknown[] }): readonly unknown[] {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.rows)) {
    throw new TypeError('plant-store/postgres: query() resolved to something without rows');
  }
  return result.rows;
}

/** The error's SQLSTATE (five digits or capitals, from the server), or `''` when it has none. */
export function sqlState(error: unknown): string {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  // A failed system call's code (EPIPE) can look like one: it is the socket's, not the server's.
  return typeof code === 'string' && SQLSTATE.test(code) && syscall === undefined ? code : '';
}

export function assertClient(client: PostgresClient, caller: string): void {
  if (client === null || typeof client !== 'object' || typeof client.query !== 'function') {
    throw new TypeError(`${caller} needs a client with a query(text, values) method`);
  }
}

/** The quoted table name, schema-qualified when `schema` is set; throws on a bad option. */
export function qualifiedTableName(
  options: PostgresTableOptions,
  caller: string,
  known: readonly string[] = ['table', 'schema'],
): string {
  checkOptionNames(caller, options, known);
  const table = quoteIdentifier(options.table ?? DEFAULT_TABLE, 'table', caller);
  return options.schema === undefined
    ? table
    : `${quoteIdentifier(options.schema, 'schema', caller)}.${table}`;
}

/** Quotes an identifier the way PostgreSQL's `quote_ident` does: in `"`, with `"` doubled. */
function quoteIdentifier(name: string, option: string, caller: string): string {
  const problem = identifierProblem(name);
  if (problem !== undefined) throw new TypeError(`${caller}: option ${option} ${problem}`);
  return `"${name.replaceAll('"', '""')}"`;
}
