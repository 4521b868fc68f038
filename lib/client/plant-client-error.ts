/**
 * The stable codes of `PlantClientError`: `ERR_STATUS` (an error status with the Error body),
 * `ERR_UNEXPECTED_RESPONSE` (an answer outside the contract), `ERR_NETWORK` (no answer on the last
 * attempt), `ERR_CLIENT_TIMEOUT` (the deadline passed).
 */
export type PlantClientErrorCode =
  'ERR_STATUS' | 'ERR_UNEXPECTED_RESPONSE' | 'ERR_NETWORK' | 'ERR_CLIENT_TIMEOUT';

/** What a `PlantClientError` carries besides its code and message, as its fields say. */
export interface PlantClientErrorDetails {
  readonly status?: number | undefined;
  readonly error?: number | undefined;
  readonly requestId?: string | undefined;
  readonly retryAfter?: number | undefined;
  /** What failed underneath: what `fetch` threw, or the failure before a timeout. */
  readonly cause?: unknown;
}

/**
 * What `createPlant` rejects with, but for a `TypeError` on misuse, the caller's abort reason and
 * what the `token` function threw; check `instanceof PlantClientError` or `code`.
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
