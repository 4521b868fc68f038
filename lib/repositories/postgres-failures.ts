// What a failed statement means for its creates: a bad row (each is sent again alone), an
// unavailable database (a `503` with `Retry-After`), or anything else (a `500`).

import { PlantApiError } from '../errors.ts';
import { sqlState } from './postgres-shared.ts';

export type Failure = 'data' | 'unavailable' | 'other';

// pg's errors for a connection that broke, never came, went silent or was closed (by the host,
// shutting down) have no SQLSTATE, only text.
const CONNECTION_LOST =
  /^(?:Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end on the pool|timeout exceeded when trying to connect|timeout expired|Query read timeout)/;

/**
 * A statement the server cancelled: it ran past `statement_timeout` (or was cancelled) or waited
 * past `lock_timeout`. The database is up but too busy to answer in time, and the connection is
 * sound.
 */
function isCancelled(error: unknown): boolean {
  const state = sqlState(error);
  return state === '57014' || state === '55P03';
}

/** Classes 22 and 23 are the data; 25006 (read-only) is a standby, so unavailable too. */
export function failureOf(error: unknown): Failure {
  const state = sqlState(error);
  if (state === '') {
    const { syscall } = (error ?? {}) as { syscall?: unknown };
    const lost =
      typeof syscall === 'string' ||
      (error instanceof Error && CONNECTION_LOST.test(error.message));
    return lost ? 'unavailable' : 'other';
  }
  const kind = state.slice(0, 2);
  if (kind === '22' || kind === '23') return 'data';
  if (
    kind === '08' ||
    kind === '53' ||
    state.startsWith('57P') ||
    state === '25006' ||
    isCancelled(error)
  ) {
    return 'unavailable';
  }
  return 'other';
}

/**
 * Whether the connection a statement failed on is to be closed rather than lent again: it broke
 * (no SQLSTATE) or the database is unavailable on it. A bad row or a statement the server
 * cancelled says nothing of the connection, and a lock storm would otherwise close every one.
 */
export function closesConnection(error: unknown): boolean {
  return sqlState(error) === '' || (failureOf(error) === 'unavailable' && !isCancelled(error));
}

/** An unavailable database becomes `ERR_STORE_UNAVAILABLE`; any other error stays as it came. */
export function storeError(error: unknown): unknown {
  if (failureOf(error) !== 'unavailable') return error;
  const state = sqlState(error);
  const detail = `${state === '' ? '' : `${state} `}${(error as Error).message}`;
  return new PlantApiError(
    'ERR_STORE_UNAVAILABLE',
    `plant-store/postgres: the database is unavailable (${detail})`,
    { cause: error },
  );
}
