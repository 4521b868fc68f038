import type { BodyReadFailure } from './_read-body.ts';

/**
 * The key under which a store's `fetch` and `handleCreatePlant` carry their plain-values
 * handler, so the `node:http` adapter can answer the store's own routes without building a
 * `Request` or a `Response` (on Node 20 those cost several times the plant logic itself).
 * Module-private: hosts never see it, and a wrapped handler simply takes the generic path.
 */
export const PLAIN_HANDLER: unique symbol = Symbol();

/**
 * How the operation learns that the client went away: the part of an `AbortSignal` it uses, so
 * a request's own signal serves as it is.
 */
export interface ClientWatch {
  /** True once the client is gone. */
  readonly aborted: boolean;
  /** Why, once it is gone. */
  readonly reason: unknown;
  /** Calls `listener` once when the client goes. */
  addEventListener(type: 'abort', listener: () => void): void;
  /** Stops calling `listener`. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the create operation needs of a request, as plain values. */
export interface PlainRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The `Authorization` header, `null` when absent. */
  readonly authorization: string | null;
  /** The `Content-Type` header, `null` when absent. */
  readonly contentType: string | null;
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
}

/** Where a body read ends: the front calls one of these, once. */
export interface BodySink {
  /** The whole body, or why there is none to parse. */
  take(bytes: Uint8Array | BodyReadFailure): void;
  /** The read failed: the stream errored, or the client went away. */
  fail(error: unknown): void;
}

/** A response as plain values: what `PlainHandler.handle` answers and the fronts send. */
export interface Reply {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, `content-type` included. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the body. */
  readonly body: string;
}

/** A handler that answers some paths on plain values. */
export interface PlainHandler {
  /** The one path (no query string) `handle` answers; every path when `undefined`. */
  readonly path: string | undefined;
  /**
   * Answers one request, as plain values: calls `answer` exactly once, before it returns when
   * the collaborators answer synchronously and the body is at hand. Never throws once it has
   * read the request; `answer` must not throw.
   */
  handle(request: PlainRequest, answer: (reply: Reply) => void): void;
}

/** The plain handler a fetch handler carries, if it is a plant store's. */
export function plainHandlerOf(handler: unknown): PlainHandler | undefined {
  return (handler as { [PLAIN_HANDLER]?: PlainHandler } | null)?.[PLAIN_HANDLER];
}
