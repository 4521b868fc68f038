// A connection is borrowed per batch, so that creates aborted during the pool's wait are not
// sent, and given back closed when it may be broken.

import { failureOf } from './postgres-failures.ts';
import {
  type PostgresClient,
  type PostgresPool,
  type PostgresPoolConnection,
  sqlState,
} from './postgres-shared.ts';

export function isPool(client: PostgresClient): client is PostgresPool {
  const pool = client as Partial<PostgresPool>;
  return typeof pool.connect === 'function' && typeof pool.waitingCount === 'number';
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
  // pg emits 'error' on a lent connection that breaks: unheard, it would end the process.
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
  // Kept after an error the server answered on it that says nothing of the connection.
  if (failure === undefined || (sqlState(failure) !== '' && failureOf(failure) !== 'unavailable')) {
    return undefined;
  }
  return failure instanceof Error ? failure : true;
}
