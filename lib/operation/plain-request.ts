/**
 * The create operation's view of a request and of its answer, as plain values: what each front
 * (the web-standard `Request` in `store/web-request.ts`, the `node:http` adapter's request in
 * `node/node-request.ts`) hands the operation, and what the operation hands back.
 *
 * @module
 */

import type { ErrorReply, PlantApiErrorCode } from '../errors.ts';

/**
 * How the operation learns that the client went away: the part of an `AbortSignal` it uses, so
 * a request's own signal serves as it is.
 */
export interface ClientWatch {
  /** True once the client is gone. */
  readonly aborted: boolean;
  /** Why, once it is gone. */
  readonly reason: unknown;
  /**
   * Calls `listener` once when the client goes; it may also be called once the response is
   * over, so it checks whether that still matters.
   */
  addEventListener(type: 'abort', listener: () => void): void;
}

/** What the create operation needs of a request, as plain values. */
export interface PlainRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The `Authorization` header, `null` when absent. */
  readonly authorization: string | null;
  /** The `Content-Type` header, `null` when absent. */
  readonly contentType: string | null;
  /** The `Content-Encoding` header, `null` when absent. */
  readonly contentEncoding: string | null;
  /** The `Origin` header, `null` when absent (or not read: a store without CORS needs none). */
  readonly origin: string | null;
  /** The `Access-Control-Request-Method` header of a CORS preflight, `null` when absent. */
  readonly preflightMethod: string | null;
  /**
   * The body length the `Content-Length` header declares, `-1` when it is absent or not a
   * plain decimal number.
   */
  readonly declaredLength: number;
  /** False when the request has no body at all; a declared length of zero is the core's to judge. */
  readonly hasBody: boolean;
  /**
   * Reads the whole body, stopping past `maxBytes`, and hands it to `sink` (at once when it is
   * already at hand). Called at most once, and only when `hasBody` is true.
   */
  readonly readBody: (maxBytes: number, sink: BodySink) => void;
  /** The client's presence. */
  readonly client: ClientWatch;
  /** The request's `X-Request-Id`, if it has one; read only when an error is reported. */
  readonly requestId: () => string | undefined;
  /**
   * The request's path, without the query string (`undefined` for a target that is no path);
   * read only for the diagnostics channels.
   */
  readonly path: string | undefined;
  /** A header by its lower-case name, `null` when absent; read only for the diagnostics channels. */
  readonly header: (name: string) => string | null;
}

/**
 * Why a body could not be read whole: more than the limit, nothing at all, or (for a request
 * built in process) another length than it declares.
 */
export type BodyReadFailure =
  'ERR_BODY_TOO_LARGE' | 'ERR_BODY_REQUIRED' | 'ERR_BODY_LENGTH_MISMATCH';

/** Where a body read ends: the front calls one of these, once. */
export interface BodySink {
  /** The whole body, or why there is none to parse. */
  take(bytes: Uint8Array | BodyReadFailure): void;
  /** The read failed: the stream errored, the client went away, or a host read the body first. */
  fail(error: unknown): void;
}

/** A create's success as plain values: `200` with the stored Plant as JSON. */
export interface PlantReply {
  /** Always `200`. */
  readonly status: 200;
  /** The response headers: `content-type: application/json`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Plant as JSON text: `name`, and `tag` when it was given. */
  readonly body: string;
}

/** A response as plain values: what the operation answers and the fronts send. */
export type Reply = PlantReply | ErrorReply;

/**
 * What a create came to: `created`, `replayed` (the same plant was stored already: `200`),
 * `conflict` (`409`), or the code of the error it answered with.
 */
export type CreateOutcome = 'created' | 'replayed' | 'conflict' | PlantApiErrorCode;

/**
 * Hands a create's reply to its front, with what the create came to and, when a fault or an
 * early end decided it, that error (never thrown: the front must not throw either).
 */
export type Answer = (reply: Reply, outcome: CreateOutcome, fault?: unknown) => void;
