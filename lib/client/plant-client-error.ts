/**
 * The stable codes of `PlantClientError`: `ERR_STATUS` (an error status with the Error body),
 * `ERR_UNEXPECTED_RESPONSE` (an answer outside the contract), `ERR_NETWORK` (no answer on the last
 * attempt), `ERR_CLIENT_TIMEOUT` (the deadline passed).
 */
export type PlantClientErrorCode =
  'ERR_STATUS' | 'ERR_UNEXPECTED_RESPONSE' | 'ERR_NETWORK' | 'ERR_CLIENT_TIMEOUT';

/** What a `PlantClientError` carries besides its code and message. */
export interface PlantClientErrorDetails {
  /** The HTTP status of the answer. */
  readonly status?: number | undefined;
  /** The Error body's `error`: the status, as the server wrote it. */
  readonly error?: number | undefined;
  /** The answer's `X-Request-Id`, when the server sent one. */
  readonly requestId?: string | undefined;
  /** The seconds the answer's `Retry-After` asked for. */
  readonly retryAfter?: number | undefined;
  /** What failed underneath: what `fetch` threw, or the failure before a timeout. */
  readonly cause?: unknown;
}

/**
 * The error `createPlant` rejects with, told apart by a stable `code`.
 *
 * Every failure but a `TypeError` on misuse, the caller's abort reason and what the `token`
 * function threw is one. For an answer, `status`, `requestId` and `retryAfter` say what came
 * back; with `ERR_STATUS`, `message` and `error` are the Error body's. Check it either way:
 * `error instanceof PlantClientError` or `error.code === 'ERR_STATUS'`.
 *
 * @example
 * ```ts
 * import { createPlantClient, PlantClientError } from 'plant-store/client';
 *
 * const client = createPlantClient({ baseUrl: 'http://127.0.0.1:3000', token: 's3cr3t' });
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
   * @param details The answer's status, Error body status, request id, `Retry-After` and `cause`.
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
