/**
 * `PlantClientError`: the one error class `plant-store/client` rejects with, told apart by a
 * stable `code`.
 *
 * @module
 */

/**
 * The stable codes of `PlantClientError`. Changing one is a breaking change.
 *
 * - `ERR_STATUS`: the server answered an error status with the contract's Error body.
 * - `ERR_UNEXPECTED_RESPONSE`: the answer is not one the contract allows: a body that is not a
 *   Plant or an Error body, not UTF-8 JSON, or too large.
 * - `ERR_NETWORK`: no answer came on the last attempt: the connection failed or was cut.
 * - `ERR_CLIENT_TIMEOUT`: the client's deadline passed before an answer.
 */
export type PlantClientErrorCode =
  'ERR_STATUS' | 'ERR_UNEXPECTED_RESPONSE' | 'ERR_NETWORK' | 'ERR_CLIENT_TIMEOUT';

/** What a `PlantClientError` knows besides its code and message. */
export interface PlantClientErrorDetails {
  /** The HTTP status of the answer. */
  readonly status?: number | undefined;
  /** The Error body's `error`: the status, as the server wrote it. */
  readonly error?: number | undefined;
  /** The answer's `X-Request-Id`, when the server sent one. */
  readonly requestId?: string | undefined;
  /** The seconds the answer's `Retry-After` asked for (an HTTP date counted from now). */
  readonly retryAfter?: number | undefined;
  /** What failed underneath: what `fetch` threw, or the failure before a timeout. */
  readonly cause?: unknown;
}

/**
 * The error `createPlant` rejects with, but for a `TypeError` on misuse, the caller's own abort
 * reason and an error the caller's `token` function threw. `code` says what went wrong; for an
 * answer, `status`, `requestId` and `retryAfter` say what came back, and with `ERR_STATUS` the
 * `message` and `error` are the Error body's.
 *
 * Check it either way: `error instanceof PlantClientError` or `error.code === 'ERR_STATUS'`.
 *
 * @example
 * ```ts
 * try {
 *   await client.createPlant({ id: 1n, name: 'Fern' });
 * } catch (error) {
 *   if (error instanceof PlantClientError && error.status === 409) console.log(error.message);
 * }
 * ```
 */
export class PlantClientError extends Error {
  /** The stable error code. */
  declare readonly code: PlantClientErrorCode;
  /** The HTTP status of the answer; `undefined` when none came. */
  declare readonly status: number | undefined;
  /** With `ERR_STATUS`, the Error body's `error`. */
  declare readonly error: number | undefined;
  /** The answer's `X-Request-Id`, when the server sent one. */
  declare readonly requestId: string | undefined;
  /** The seconds the answer's `Retry-After` asked for, when it sent a readable one. */
  declare readonly retryAfter: number | undefined;

  /**
   * @param code The error code.
   * @param message Text for a person: with `ERR_STATUS`, the Error body's message.
   * @param details The answer's status, Error body status, request id and `Retry-After`, and the
   *   `cause`.
   */
  constructor(code: PlantClientErrorCode, message: string, details: PlantClientErrorDetails = {}) {
    super(message, details);
    // A literal, not this.constructor.name, which a minifier renames.
    this.name = 'PlantClientError';
    this.code = code;
    this.status = details.status;
    this.error = details.error;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
  }
}
