/**
 * The errors `plant-store/client` rejects with: one base, `PlantClientError`, and a class with a
 * stable `code` for each way a create can fail.
 *
 * @module
 */

import type { ErrorBody } from '../types.ts';

/**
 * The stable codes of the client's errors. Changing one is a breaking change.
 *
 * - `ERR_STATUS`: the server answered an error status with the contract's Error body
 *   (`PlantStatusError`).
 * - `ERR_UNEXPECTED_RESPONSE`: the answer is not one the contract allows: a body that is not a
 *   Plant or an Error body, not JSON, not UTF-8, or too large (`PlantResponseError`).
 * - `ERR_NETWORK`: no answer came on the last attempt: the connection failed or was cut
 *   (`PlantNetworkError`).
 * - `ERR_CLIENT_TIMEOUT`: the client's deadline passed before an answer (`PlantTimeoutError`).
 */
export type PlantClientErrorCode =
  'ERR_STATUS' | 'ERR_UNEXPECTED_RESPONSE' | 'ERR_NETWORK' | 'ERR_CLIENT_TIMEOUT';

/** What the client knows about an answer it refuses. */
export interface AnswerFacts {
  /** The HTTP status. */
  readonly status: number;
  /** The `X-Request-Id` response header, when the server sent one. */
  readonly requestId: string | undefined;
  /** The seconds `Retry-After` asked for (an HTTP date counted from now), when readable. */
  readonly retryAfter: number | undefined;
  /** How many requests this create sent, retries included. */
  readonly attempts: number;
}

/**
 * The base of every error `createPlant` rejects with, but for a `TypeError` on misuse, the
 * caller's own abort reason and an error the caller's `token` function threw.
 *
 * Check it either way: `error instanceof PlantStatusError` or `error.code === 'ERR_STATUS'`.
 *
 * @example
 * ```ts
 * try {
 *   await client.createPlant({ id: 1n, name: 'Fern' });
 * } catch (error) {
 *   if (error instanceof PlantClientError && error.code === 'ERR_STATUS') console.log(error.message);
 * }
 * ```
 */
export class PlantClientError extends Error {
  /** The stable error code. */
  declare readonly code: PlantClientErrorCode;
  /** How many requests this create sent, retries included. */
  declare readonly attempts: number;

  /**
   * @param code The error code.
   * @param message Text for a person.
   * @param attempts How many requests were sent.
   * @param options The underlying `cause`, if any.
   */
  constructor(
    code: PlantClientErrorCode,
    message: string,
    attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = this.constructor.name;
    this.code = code;
    this.attempts = attempts;
  }
}

/**
 * The server answered an error status with the contract's Error body (`ERR_STATUS`): `message`
 * is the body's message, `error` its status field.
 */
export class PlantStatusError extends PlantClientError {
  /** The HTTP status. */
  declare readonly status: number;
  /** The Error body's `error`: the status, as the server wrote it. */
  declare readonly error: number;
  /** The Error body as the server sent it. */
  declare readonly body: ErrorBody;
  /** The `X-Request-Id` response header, when the server sent one. */
  declare readonly requestId: string | undefined;
  /** The seconds `Retry-After` asked for, when the server sent a readable one. */
  declare readonly retryAfter: number | undefined;

  /**
   * @param body The Error body.
   * @param facts The status, request id, `Retry-After` and attempts.
   */
  constructor(body: ErrorBody, facts: AnswerFacts) {
    super('ERR_STATUS', body.message, facts.attempts);
    this.status = facts.status;
    this.error = body.error;
    this.body = { error: body.error, message: body.message };
    this.requestId = facts.requestId;
    this.retryAfter = facts.retryAfter;
  }
}

/**
 * The answer is not one the contract allows (`ERR_UNEXPECTED_RESPONSE`): a success that is not
 * a Plant, an error status without the Error body (a proxy's page, say), a body that is not
 * UTF-8 JSON or is too large. The message says which.
 */
export class PlantResponseError extends PlantClientError {
  /** The HTTP status. */
  declare readonly status: number;
  /** The `X-Request-Id` response header, when the server sent one. */
  declare readonly requestId: string | undefined;
  /** The seconds `Retry-After` asked for, when the server sent a readable one. */
  declare readonly retryAfter: number | undefined;

  /**
   * @param message What is wrong with the answer.
   * @param facts The status, request id, `Retry-After` and attempts.
   * @param options The underlying `cause`, if any.
   */
  constructor(message: string, facts: AnswerFacts, options?: { cause?: unknown }) {
    super('ERR_UNEXPECTED_RESPONSE', message, facts.attempts, options);
    this.status = facts.status;
    this.requestId = facts.requestId;
    this.retryAfter = facts.retryAfter;
  }
}

/** No answer came on the last attempt (`ERR_NETWORK`); `cause` is what `fetch` threw. */
export class PlantNetworkError extends PlantClientError {
  /**
   * @param message What failed.
   * @param attempts How many requests were sent.
   * @param options The error `fetch` threw.
   */
  constructor(message: string, attempts: number, options: { cause: unknown }) {
    super('ERR_NETWORK', message, attempts, options);
  }
}

/**
 * The client's deadline (`timeoutMs`) passed before an answer (`ERR_CLIENT_TIMEOUT`); `cause` is
 * the failure of the attempt before, if there was one.
 */
export class PlantTimeoutError extends PlantClientError {
  /**
   * @param message What ran out of time.
   * @param attempts How many requests were sent.
   * @param options The failure before, if any.
   */
  constructor(message: string, attempts: number, options?: { cause?: unknown }) {
    super('ERR_CLIENT_TIMEOUT', message, attempts, options);
  }
}
