/**
 * What the tests that need the PostgreSQL server itself (DATABASE_URL) set up: pools and
 * connections of a test's own, with a fresh table, gone when the test ends; and a transaction
 * that holds a row, so that a create of its id waits.
 *
 * @module
 */

import type { TestContext } from 'node:test';
import pg from 'pg';
import type { PostgresTableOptions } from '../../lib/postgres.ts';
import { DATABASE_URL, freshTable, qualified } from './postgres-backends.ts';

/** A pg Pool of the test's own on the server, ended when it ends; `options` go to the server. */
export function poolFor(t: TestContext, max: number, options?: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max, options });
  t.after(() => pool.end());
  return pool;
}

/** A pool whose every transaction is read-only: an INSERT answers 25006, as on a hot standby. */
export function readOnlyPool(t: TestContext, max: number): pg.Pool {
  return poolFor(t, max, '-c default_transaction_read_only=on');
}

/** A fresh table on the test's own client; when the test ends, it is dropped, the client ended. */
async function ownTable(t: TestContext, client: pg.Pool | pg.Client) {
  let drop = async () => {};
  t.after(async () => {
    try {
      await drop();
    } finally {
      await client.end();
    }
  });
  const { table, cleanup } = await freshTable(client);
  drop = cleanup;
  return table;
}

/** A pool of the test's own and a fresh table on it, both gone when the test ends. */
export async function serverTable(t: TestContext, max: number) {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max });
  return { pool, table: await ownTable(t, pool) };
}

/**
 * One connection of the test's own (a pg Client: one session) and a fresh table on it, both
 * gone when the test ends.
 */
export async function connectionTable(t: TestContext) {
  const connection = new pg.Client({ connectionString: DATABASE_URL });
  await connection.connect();
  return { connection, table: await ownTable(t, connection) };
}

/**
 * A transaction on a connection of its own that has inserted row `id` (named 'holder') and is
 * still open: a create of that id waits for it to commit or roll back. Call `end()` before the
 * table is dropped: it rolls back what is still open and gives the connection back.
 */
export async function holdRow(pool: pg.Pool, table: PostgresTableOptions, id: number) {
  const connection = await pool.connect();
  let open = false;
  const finish = async (command: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    await connection.query(command);
  };
  const end = async () => {
    try {
      await finish('ROLLBACK');
    } catch (error) {
      connection.release(error as Error);
      throw error;
    }
    connection.release();
  };
  try {
    await connection.query('BEGIN');
    open = true;
    await connection.query(`INSERT INTO ${qualified(table)} (id, name) VALUES (${id}, 'holder')`);
  } catch (error) {
    await end();
    throw error;
  }
  return { commit: () => finish('COMMIT'), rollback: () => finish('ROLLBACK'), end };
}
