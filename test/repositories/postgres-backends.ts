/**
 * What the PostgreSQL repository's test files share: the backends they run on (PGlite, and the
 * server at DATABASE_URL), fresh tables named for the run, and clients that hold, record or
 * script statements. The tests that need the server itself set up the rest with
 * `postgres-server.ts`.
 *
 * @module
 */

import { after, it, type TestContext } from 'node:test';
import pg from 'pg';
import { createStaticTokenVerifier, type NewPlant } from '../../lib/index.ts';
import {
  createPostgresRepository,
  ensurePlantTable,
  type PostgresClient,
  type PostgresTableOptions,
} from '../../lib/postgres.ts';

// PGlite (embedded PostgreSQL) runs when its package is installed (`npm ci --prefix
// test/repositories`: kept out of the main install, 27 MB), so a machine without a server can
// still test the SQL; a real server runs as well when DATABASE_URL is set. CI does both.
export const DATABASE_URL = process.env.DATABASE_URL;

/** What this suite uses of PGlite, typed here so the suite type-checks without its package. */
interface PGliteDatabase extends PostgresClient {
  readonly waitReady: Promise<void>;
  close(): Promise<void>;
}

/** PGlite's constructor from this folder's own install, or `undefined` when it is not there. */
async function loadPGlite(): Promise<(new () => PGliteDatabase) | undefined> {
  // A specifier in a variable: resolved at run time (test/repositories/node_modules), not by tsc.
  const specifier: string = '@electric-sql/pglite';
  try {
    const module = (await import(specifier)) as { PGlite: new () => PGliteDatabase };
    return module.PGlite;
  } catch {
    return undefined;
  }
}
export const PGlite = await loadPGlite();

export interface Backend {
  readonly name: string;
  /** The shared client of this file's run on the backend, connected on first use. */
  readonly client: () => Promise<PostgresClient>;
}

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers) await close();
});

function lazy<T>(connect: () => Promise<T>, close: (value: T) => Promise<void>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    if (promise === undefined) {
      promise = connect();
      const opened = promise;
      closers.push(async () => close(await opened));
    }
    return promise;
  };
}

const pglite = lazy(
  async () => {
    const db = new (PGlite as new () => PGliteDatabase)();
    await db.waitReady;
    return db;
  },
  (db) => db.close(),
);

/** A fresh pg Pool on the real server, closed when the file ends: a stand-in for one process. */
export function serverPool(): () => Promise<pg.Pool> {
  return lazy(
    async () => new pg.Pool({ connectionString: DATABASE_URL, max: 10 }),
    (pool) => pool.end(),
  );
}

export const backends: Backend[] = PGlite === undefined ? [] : [{ name: 'PGlite', client: pglite }];
export const poolA = serverPool();
export const poolB = serverPool();
if (DATABASE_URL !== undefined && DATABASE_URL !== '') {
  backends.push({ name: 'PostgreSQL server', client: poolA });
}

// Unique per run, so runs on one database never collide (CI and a developer, or two CI jobs).
export const RUN = `${process.pid.toString(36)}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
let tables = 0;
export function uniqueTableName(prefix = 'plant_store'): string {
  tables += 1;
  return `${prefix}_${RUN}_${tables}`;
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

export function qualified(options: PostgresTableOptions): string {
  const table = quote(options.table ?? 'plants');
  return options.schema === undefined ? table : `${quote(options.schema)}.${table}`;
}

export function signal(): AbortSignal {
  return new AbortController().signal;
}

/** A fresh table on the backend, ensured, and a repository over it; cleanup drops it. */
export async function freshTable(client: PostgresClient, options: PostgresTableOptions = {}) {
  const table = { table: uniqueTableName(), ...options };
  const cleanup = async () => {
    await client.query(`DROP TABLE IF EXISTS ${qualified(table)}`, []);
  };
  try {
    await ensurePlantTable(client, table);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { table, repository: createPostgresRepository(client, table), cleanup };
}

/** A fresh table on the client, as `freshTable` makes it, dropped when the test `t` ends. */
export async function tableFor(
  t: TestContext,
  client: PostgresClient,
  options?: PostgresTableOptions,
) {
  const fresh = await freshTable(client, options);
  t.after(fresh.cleanup);
  return fresh;
}

/** One connection of the client (a pool's, checked out) and how to give it back. */
export async function oneSession(
  client: PostgresClient,
): Promise<PostgresClient & { release: () => Promise<void> }> {
  if (client instanceof pg.Pool) {
    const connection = await client.connect();
    return {
      query: (text, values) => connection.query(text, values),
      release: async () => connection.release(),
    };
  }
  // PGlite is one session already.
  return { query: (text, values) => client.query(text, values), release: async () => {} };
}

/**
 * A repository on the table over the client, one statement in flight at a time, with its first
 * statement held back until `release()`: the creates made meanwhile wait and go together in the
 * next statement. Records every statement; `create` makes one with a signal that never fires.
 */
export function heldRepository(client: PostgresClient, table: PostgresTableOptions) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const statements: Array<{ text: string; values: unknown[] }> = [];
  const held: PostgresClient = {
    async query(text: string, values: unknown[] = []) {
      statements.push({ text, values });
      if (statements.length === 1) await gate;
      return client.query(text, values);
    },
  };
  const repository = createPostgresRepository(held, { ...table, maxInFlight: 1 });
  const create = (plant: NewPlant) => repository.create(plant, { signal: signal() });
  const inserts = () => statements.filter((statement) => statement.text.startsWith('INSERT'));
  return { repository, create, statements, inserts, release };
}

/** The ids stored in the table, in order, as text. */
export async function storedIds(client: PostgresClient, table: PostgresTableOptions) {
  const { rows } = await client.query(
    `SELECT id::text AS id FROM ${qualified(table)} ORDER BY id`,
    [],
  );
  return rows.map((row) => (row as { id: string }).id);
}

/** The ids a create statement sent: one alone, or the array of a batch. */
export function idsOf(values: unknown[]): unknown[] {
  return Array.isArray(values[0]) ? values[0] : [values[0]];
}

/** A client that records every call and answers from a script. */
export function scriptedClient(answer: (text: string, values: unknown[], call: number) => unknown) {
  const calls: Array<{ text: string; values: unknown[] }> = [];
  const client: PostgresClient = {
    query(text: string, values: unknown[] = []) {
      calls.push({ text, values });
      return answer(text, values, calls.length) as Promise<{ rows: unknown[] }>;
    },
  };
  return { client, calls };
}

export function post(body: string): Request {
  return new Request('http://localhost/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
    body,
  });
}

export async function answer(response: Response) {
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as unknown,
  };
}

export const verifier = createStaticTokenVerifier(['t0ken']);

/** Says why nothing ran when neither backend is there; call it once in a file that uses them. */
export function skipWithoutBackends(): void {
  if (backends.length === 0) {
    it.skip(
      'the repository on SQL: neither PGlite (npm ci --prefix test/repositories) nor DATABASE_URL',
    );
  }
}

/** Whether a PostgreSQL server is set (DATABASE_URL): the tests that need one run only then. */
export const hasServer = DATABASE_URL !== undefined && DATABASE_URL !== '';
