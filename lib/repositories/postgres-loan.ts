// A connection is borrowed per batch, so that creates aborted during the pool's wait are not
// sent, and given back closed when it may be broken. Every connection is heard from the start.

import { closesConnection } from './postgres-failures.ts';
import {
  type PostgresClient,
  type PostgresPool,
  type PostgresPoolConnection,
} from './postgres-shared.ts';

export function isPool(client: PostgresClient): client is PostgresPool {
  const pool = client as Partial<PostgresPool>;
  return typeof pool.connect === 'function' && typeof pool.waitingCount === 'number';
}

/** One connection of its own, a `pg` `Client` (or one a pool lent): `connect` and `on`, no pool. */
interface LoneConnection extends PostgresClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export function isLoneConnection(client: PostgresClient): client is LoneConnection {
  const connection = client as Partial<LoneConnection> & { connect?: unknown };
  return (
    !isPool(client) &&
    typeof connection.connect === 'function' &&
    typeof connection.on === 'function'
  );
}

const heard = new WeakSet<object>();

/**
 * Listens to a connection's `'error'` for its life, once however many repositories share it:
 * unheard, a dropped connection would end the process. Its statements fail with the error too,
 * and later ones with pg's "not queryable", so the creates report it.
 */
export function hearErrors(connection: LoneConnection): void {
  if (heard.has(connection)) return;
  heard.add(connection);
  connection.on('error', () => {});
}

/**
 * Hears every connection a `pg` `Pool` makes from the moment it is made. The pool lends a new
 * one through a promise, and a server that ends it in the packet that finished it (a shutdown)
 * has it emit `'error'` before the borrower can listen.
 */
export function hearNewConnections(pool: PostgresPool): void {
  const emitter = pool as PostgresPool & {
    on?: (event: 'connect', listener: (connection: LoneConnection) => void) => unknown;
  };
  if (typeof emitter.on !== 'function' || heard.has(pool)) return;
  heard.add(pool);
  emitter.on('connect', (connection) => {
    if (typeof connection?.on === 'function') hearErrors(connection);
  });
}

export async function onLoan(
  pool: PostgresPool,
  work: (connection: PostgresClient) => Promise<void>,
): Promise<void> {
  const connection: PostgresPoolConnection = await pool.connect();
  let failure: unknown;
  const onError = (error: Error) => {
    failure ??= error;
  };
  // pg emits 'error' on a lent connection that breaks: what broke it decides its release.
  connection.on('error', onError);
  try {
    await work(connection);
  } catch (error) {
    failure ??= error;
    throw error;
  } finally {
    connection.off('error', onError);
    connection.release(brokenBy(failure));
  }
}

/** What a lent connection goes back with: nothing to keep it, an error to have it closed. */
function brokenBy(failure: unknown): Error | true | undefined {
  if (failure === undefined || !closesConnection(failure)) return undefined;
  return failure instanceof Error ? failure : true;
}
