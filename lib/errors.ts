/**
 * Every error the API answers with, built in one place: a stable `ERR_*` code decides the HTTP
 * status, the headers and the default message of the contract's Error body
 * `{ "error": <status>, "message": <text> }`.
 *
 * @module
 */

/**
 * The stable codes of every error plant-store answers with or reports. Changing one is a
 * breaking change.
 *
 * Switch on `code` rather than on the message, which is text for a person. Three codes name a
 * mistake in the host's code rather than in the request; the client gets a `500` and `onError`
 * gets a `PlantApiError` that says what to fix (for a body read first, the `500` names the fix
 * too, since a setup mistake holds no secret):
 * - `ERR_BODY_ALREADY_READ`: something read the request body before the store (a body parser or
 *   validator mounted in front of it).
 * - `ERR_MALFORMED_VERDICT`: a `TokenVerifier` answered something other than a `TokenVerdict`.
 * - `ERR_MALFORMED_OUTCOME`: a `PlantRepository` answered something other than a
 *   `CreatePlantOutcome`.
 *
 * Two codes are for a repository to throw, each as a `PlantApiError`; any other error it throws
 * is a `500`:
 * - `ERR_STORE_FULL`: the client is told `507 the store is full`.
 * - `ERR_STORE_UNAVAILABLE`: the storage cannot serve for now (a failover, a restart, too many
 *   connections); the client gets `503` with `Retry-After`, and `onError` hears it.
 *
 * Two codes say which collaborator had not answered when a create's deadline passed; the client
 * gets `503` (`ERR_TIMEOUT`) and `onError` gets a `PlantApiError` with one of them:
 * - `ERR_VERIFIER_TIMEOUT`: the `TokenVerifier`.
 * - `ERR_REPOSITORY_TIMEOUT`: the `PlantRepository`.
 */
export type PlantApiErrorCode =
  | 'ERR_BAD_REQUEST'
  | 'ERR_MISSING_TOKEN'
  | 'ERR_INVALID_TOKEN'
  | 'ERR_NOT_FOUND'
  | 'ERR_METHOD_NOT_ALLOWED'
  | 'ERR_ID_CONFLICT'
  | 'ERR_BODY_TOO_LARGE'
  | 'ERR_UNSUPPORTED_MEDIA_TYPE'
  | 'ERR_UNSUPPORTED_CONTENT_ENCODING'
  | 'ERR_HEADERS_TOO_LARGE'
  | 'ERR_BODY_REQUIRED'
  | 'ERR_BODY_LENGTH_MISMATCH'
  | 'ERR_INVALID_UTF8'
  | 'ERR_INVALID_JSON'
  | 'ERR_INVALID_PLANT'
  | 'ERR_INTERNAL'
  | 'ERR_NOT_IMPLEMENTED'
  | 'ERR_STORE_FULL'
  | 'ERR_STORE_UNAVAILABLE'
  | 'ERR_BODY_ALREADY_READ'
  | 'ERR_MALFORMED_VERDICT'
  | 'ERR_MALFORMED_OUTCOME'
  | 'ERR_TIMEOUT'
  | 'ERR_VERIFIER_TIMEOUT'
  | 'ERR_REPOSITORY_TIMEOUT';

interface ErrorDefinition {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const REALM = 'Bearer realm="plant-store"';

const ERRORS: Readonly<Record<PlantApiErrorCode, ErrorDefinition>> = {
  ERR_BAD_REQUEST: { status: 400, message: 'malformed request' },
  ERR_BODY_REQUIRED: { status: 400, message: 'request body is required' },
  ERR_BODY_LENGTH_MISMATCH: {
    status: 400,
    message: 'request body length does not match its Content-Length',
  },
  ERR_INVALID_UTF8: { status: 400, message: 'request body is not valid UTF-8' },
  ERR_INVALID_JSON: { status: 400, message: 'request body is not valid JSON' },
  ERR_INVALID_PLANT: { status: 400, message: 'request body is not a valid NewPlant' },
  ERR_MISSING_TOKEN: {
    status: 401,
    message: 'a bearer token is required',
    headers: { 'www-authenticate': REALM },
  },
  ERR_INVALID_TOKEN: {
    status: 401,
    message: 'the bearer token is not valid',
    headers: { 'www-authenticate': `${REALM}, error="invalid_token"` },
  },
  ERR_NOT_FOUND: { status: 404, message: 'not found' },
  ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    message: 'method not allowed',
    headers: { allow: 'POST' },
  },
  ERR_ID_CONFLICT: {
    status: 409,
    message: 'a different plant is already stored under this id',
  },
  ERR_BODY_TOO_LARGE: { status: 413, message: 'request body is too large' },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'content type must be application/json (charset utf-8, if given)',
  },
  // RFC 7694: the answer names the codings a request body may have.
  ERR_UNSUPPORTED_CONTENT_ENCODING: {
    status: 415,
    message: 'request bodies must not be content-coded (Content-Encoding: identity)',
    headers: { 'accept-encoding': 'identity' },
  },
  ERR_HEADERS_TOO_LARGE: { status: 431, message: 'request headers are too large' },
  ERR_INTERNAL: { status: 500, message: 'internal error' },
  ERR_NOT_IMPLEMENTED: { status: 501, message: 'not implemented' },
  ERR_STORE_FULL: { status: 507, message: 'the store is full' },
  // One second: a failover or restart behind one address serves again within seconds, and a
  // client's own backoff with jitter spreads its retries and lengthens them while an outage lasts.
  ERR_STORE_UNAVAILABLE: {
    status: 503,
    message: 'the store is unavailable for now; retrying the request is safe',
    headers: { 'retry-after': '1' },
  },
  // The host's mistakes: the PlantApiError tells onError the fix. A body parser in front is a
  // setup mistake that holds no secret, so its 500 names the fix for whoever reads the response.
  ERR_BODY_ALREADY_READ: {
    status: 500,
    message:
      'internal error: the request body was read before plant-store; mount plant-store before any body parser',
  },
  ERR_MALFORMED_VERDICT: { status: 500, message: 'internal error' },
  ERR_MALFORMED_OUTCOME: { status: 500, message: 'internal error' },
  ERR_TIMEOUT: { status: 503, message: 'the request timed out; retrying it is safe' },
  // What onError hears when the deadline passes; the client gets ERR_TIMEOUT's reply.
  ERR_VERIFIER_TIMEOUT: { status: 503, message: 'the verifier did not answer in time' },
  ERR_REPOSITORY_TIMEOUT: { status: 503, message: 'the repository did not answer in time' },
};

/**
 * An error response as plain values (status, headers, the JSON body), before it becomes a
 * `Response` or is written to a socket: the same shape as every reply the store builds.
 */
export interface ErrorReply {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, `content-type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the body. */
  readonly body: string;
}

/**
 * Builds the reply for an error code: its status, its headers and the Error body.
 *
 * @param code The error.
 * @param message Replaces the default message; plain text for a person, never internal detail.
 * @returns The reply as plain values.
 * @throws {TypeError} When `code` is not one of the `PlantApiErrorCode`s.
 * @example
 * ```ts
 * errorReply('ERR_NOT_FOUND'); // { status: 404, headers: {...}, body: '{"error":404,"message":"not found"}' }
 * ```
 */
export function errorReply(code: PlantApiErrorCode, message?: string): ErrorReply {
  const { status, message: defaultMessage, headers } = definitionOf(code);
  return {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ error: status, message: message ?? defaultMessage }),
  };
}

/**
 * Builds the `Response` for an error code: `errorReply` as a web-standard response.
 *
 * @param code The error.
 * @param message Replaces the default message.
 * @returns A fresh `Response` with the Error body.
 * @example
 * ```ts
 * const response = errorResponse('ERR_METHOD_NOT_ALLOWED'); // 405, Allow: POST
 * ```
 */
export function errorResponse(code: PlantApiErrorCode, message?: string): Response {
  return replyResponse(errorReply(code, message));
}

/** A reply (an error's, or any of the same shape) as a web-standard `Response`. */
export function replyResponse(reply: ErrorReply): Response {
  // A 204 (a CORS preflight's answer) must have no body at all, not even an empty one.
  const body = reply.status === 204 ? null : reply.body;
  return new Response(body, { status: reply.status, headers: reply.headers });
}

/** The headers every JSON response carries. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});

/**
 * The base of the errors plant-store raises, each with a stable `code` and the HTTP `status` it
 * answers with. The store gives one as the `reason` of the signal it hands a repository when the
 * deadline passes (`ERR_TIMEOUT`).
 *
 * Check it either way: `error instanceof PlantApiError` or `error.code === 'ERR_TIMEOUT'`.
 *
 * @example
 * ```ts
 * if (signal.reason instanceof PlantApiError && signal.reason.code === 'ERR_TIMEOUT') {
 *   // the store gave up waiting
 * }
 * ```
 */
export class PlantApiError extends Error {
  /** The stable error code. */
  declare readonly code: PlantApiErrorCode;
  /** The HTTP status the API answers with for this error. */
  declare readonly status: number;

  /**
   * @param code The error code.
   * @param message Replaces the code's default message.
   * @param options The underlying `cause`, if any.
   */
  constructor(code: PlantApiErrorCode, message?: string, options?: { cause?: unknown }) {
    const definition = definitionOf(code);
    super(message ?? definition.message, options);
    this.name = this.constructor.name;
    this.code = code;
    this.status = definition.status;
  }
}

/** The definition of a code; a code outside the list (from JavaScript, say) is a `TypeError`. */
function definitionOf(code: PlantApiErrorCode): ErrorDefinition {
  const definition = Object.hasOwn(ERRORS, code) ? ERRORS[code] : undefined;
  if (definition === undefined) throw new TypeError(`unknown plant-store error code: ${code}`);
  return definition;
}
