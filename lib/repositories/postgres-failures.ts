/**
 * What a failed statement of the PostgreSQL repository says about the creates it carried: one
 * of their rows is bad (each is sent again alone), the database is unavailable for now (a
 * `503` with `Retry-After`), or something else failed (a `500`).
 *
 * @module
 */

import { PlantApiError } from '../errors.ts';
import { sqlState } from './postgres-shared.ts';

/** What a failed statement was about. */
export type Failure = 'data' | 'unavailable' | 'other';

/**
 * pg's errors for a connection that broke, never came or went silent carry no SQLSTATE: they
 * are known by their text (`Client` and `Pool` of pg 8).
 */
const CONNECTION_LOST =
  /^(?:Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|timeout expired|Query read timeout)/;

/**
 * What a statement's error was about: the data (SQLSTATE classes 22 and 23), an unavailable
 * database (a failed socket call, a connection lost or never made, classes 08 and 53, 57P*,
 * 25006 read-only: a standby), or anything else.
 */
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
  if (kind === '08' || kind === '53' || state.startsWith('57P') || state === '25006') {
    return 'unavailable';
  }
  return 'other';
}

/**
 * What the creates of a failed statement reject with: `ERR_STORE_UNAVAILABLE` (caused by the
 * driver's error) when the database is unavailable, else the driver's error as it came.
 */
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
