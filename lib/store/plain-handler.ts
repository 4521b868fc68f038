/**
 * The bridge between a plant store and the `node:http` adapter: a store's `fetch` and
 * `handleCreatePlant` carry their operation on plain values under a module-private symbol, so
 * the adapter can answer the store's own routes without building a `Request` or a `Response`
 * (on Node 20 those cost several times the plant logic itself). Hosts never see it, and a
 * wrapped handler simply takes the adapter's generic path.
 *
 * @module
 */

import type { PlainRequest, Reply } from '../operation/plain-request.ts';

/** The key a store's handlers carry their plain handler under. */
const PLAIN_HANDLER: unique symbol = Symbol('plant-store.plain-handler');

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
  /**
   * The answer to a request whose method a `Request` cannot carry (`CONNECT`, `TRACE`), on a
   * path `handle` does not answer (`undefined` for a target that is no path): the routes treat
   * such a method like any other they do not take.
   */
  refuse(path: string | undefined): Reply;
}

/** Attaches a plain handler to a fetch handler, for the adapter to find. */
export function attachPlainHandler(handler: object, plain: PlainHandler): void {
  Object.defineProperty(handler, PLAIN_HANDLER, { value: plain });
}

/** The plain handler a fetch handler carries, if it is a plant store's. */
export function plainHandlerOf(handler: unknown): PlainHandler | undefined {
  return (handler as { [PLAIN_HANDLER]?: PlainHandler } | null)?.[PLAIN_HANDLER];
}
