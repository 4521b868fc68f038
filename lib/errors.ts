/**
 * The stable code of every error plant-store answers with or reports.
 *
 * Switch on the code, not on the message; changing a code is a breaking change. Most codes name
 * what was wrong with a request and decide its status. The others:
 * - `ERR_STORE_FULL` (`507`), `ERR_STORE_UNAVAILABLE` (`503` with `Retry-After`): for a
 *   repository to throw as a `PlantApiError`.
 * - `ERR_BODY_ALREADY_READ`: something read the body before the store (mount it before any body
 *   parser).
 * - `ERR_MALFORMED_VERDICT`, `ERR_MALFORMED_OUTCOME`: a verifier or a repository answered the
 *   wrong shape; the client gets `500`.
 * - `ERR_VERIFIER_TIMEOUT`, `ERR_REPOSITORY_TIMEOUT`: which collaborator the deadline caught, for
 *   `onError`; the client gets `ERR_TIMEOUT` (`503`).
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
  // One second: a failover behind one address serves again within seconds; clients back off.
  ERR_STORE_UNAVAILABLE: {
    status: 503,
    message: 'the store is unavailable for now; retrying the request is safe',
    headers: { 'retry-after': '1' },
  },
  // The host's mistakes, told to onError; a body parser in front is no secret, so its 500 says so.
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

/** An error response as plain values, before it is a `Response` or written to a socket. */
export interface ErrorReply {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, `content-type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the Error body, `{"error":<status>,"message":<text>}`. */
  readonly body: string;
}

/**
 * Builds the reply for an error code: its status, its headers and the Error body.
 *
 * The code decides the status and any header the answer needs (`WWW-Authenticate`, `Allow`,
 * `Retry-After`); the body's message is the code's default unless `message` replaces it.
 *
 * @param code The error.
 * @param message Replaces the default message: text for a person, never internal detail.
 * @returns The reply as plain values.
 * @throws {TypeError} When `code` is not a `PlantApiErrorCode`.
 * @example
 * ```ts
 * import { errorReply } from 'plant-store';
 *
 * errorReply('ERR_NOT_FOUND').body; // '{"error":404,"message":"not found"}'
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
 * Builds the web-standard `Response` for an error code: `errorReply` as a `Response`.
 *
 * A host's own routes can answer with it in the store's Error shape.
 *
 * @param code The error.
 * @param message Replaces the default message.
 * @returns A fresh `Response` with the code's status, headers and Error body.
 * @throws {TypeError} When `code` is not a `PlantApiErrorCode`.
 * @example
 * ```ts
 * import { errorResponse } from 'plant-store';
 *
 * errorResponse('ERR_METHOD_NOT_ALLOWED').headers.get('allow'); // 'POST' (status 405)
 * ```
 */
export function errorResponse(code: PlantApiErrorCode, message?: string): Response {
  return replyResponse(errorReply(code, message));
}

export function replyResponse(reply: ErrorReply): Response {
  // A 204 (a CORS preflight's answer) has no body at all, not even an empty one.
  const body = reply.status === 204 ? null : reply.body;
  return new Response(body, { status: reply.status, headers: reply.headers });
}

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});

/**
 * The error plant-store raises, with a stable `code` and the HTTP `status` it answers with.
 *
 * A repository throws one to choose its answer (`ERR_STORE_FULL`, `ERR_STORE_UNAVAILABLE`);
 * `onError` gets one for the host's mistakes and for deadlines; the collaborators' signal has one
 * (`ERR_TIMEOUT`) as its `reason` when the deadline passes. Check `error instanceof
 * PlantApiError`, or its `code`.
 *
 * @example
 * ```ts
 * import { PlantApiError, type PlantRepository } from 'plant-store';
 *
 * const readOnly: PlantRepository = {
 *   create() {
 *     throw new PlantApiError('ERR_STORE_UNAVAILABLE'); // the client gets 503 with Retry-After
 *   },
 * };
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
   * @throws {TypeError} When `code` is not a `PlantApiErrorCode`.
   */
  constructor(code: PlantApiErrorCode, message?: string, options?: { cause?: unknown }) {
    const definition = definitionOf(code);
    super(message ?? definition.message, options);
    this.name = this.constructor.name;
    this.code = code;
    this.status = definition.status;
  }
}

/** A code outside the list (from JavaScript, say) is a `TypeError`. */
function definitionOf(code: PlantApiErrorCode): ErrorDefinition {
  const definition = Object.hasOwn(ERRORS, code) ? ERRORS[code] : undefined;
  if (definition === undefined) throw new TypeError(`unknown plant-store error code: ${code}`);
  return definition;
}
