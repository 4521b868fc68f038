/**
 * How the `node:http` adapter knows a plant store's routes: the store registers its `fetch` and
 * `handleCreatePlant` here with the operation they run, and the adapter, handed one of those
 * functions, gives those routes its own light request (a `PlainRequest`) and sends the plain
 * reply, with no `Request` or `Response` made. Any other handler, a wrapper of the store's
 * included, gets a native `Request`. Nothing is set on the functions themselves.
 *
 * @module
 */

import type { PlainRequest, Reply } from '../operation/plain-request.ts';

/** The routes a store's handler answers on plain values. */
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

/** The plain routes of the handlers plant stores made. */
const plainHandlers = new WeakMap<object, PlainHandler>();

/** Registers the plain routes of a store's handler, for the adapter to find. */
export function attachPlainHandler(handler: object, plain: PlainHandler): void {
  plainHandlers.set(handler, plain);
}

/** The plain routes of a handler, if a plant store made it. */
export function plainHandlerOf(handler: unknown): PlainHandler | undefined {
  return typeof handler === 'function' ? plainHandlers.get(handler) : undefined;
}
