/**
 * What the adapters and wrappers that know a plant store read of its handlers: one private
 * record per handler, set where the store makes them. The Node adapter answers the plain route
 * with no `Request` or `Response`; `withDocs` follows the base path and the public origin; the
 * framework entries move the routes under their mount path.
 *
 * The rule for a host's own wrapper of a store's handler (`(request) => store.fetch(request)`):
 * it has no record, so it is any fetch handler to them. It answers the same, through a native
 * `Request`; it cannot be mounted by a framework entry, which takes the store itself.
 * `withDocs` is the one wrapper that keeps the record.
 *
 * @module
 */

import type { PlainRequest, Reply } from '../operation/plain-request.ts';
import type { PlantStore } from '../types.ts';
import { checkBasePath } from './api-location.ts';
import { pathOf } from './url-path.ts';

/** A store's routes, as its handlers know them. */
export interface StoreRoutes {
  /** The one path (no query string) `handle` answers; every path when `undefined`. */
  readonly path: string | undefined;
  /**
   * Answers one request, as plain values: calls `answer` exactly once, before it returns when
   * the collaborators answer synchronously and the body is at hand. Never throws.
   */
  readonly handle: (request: PlainRequest, answer: (reply: Reply) => void) => void;
  /**
   * The answer to a request whose method a `Request` cannot carry (`CONNECT`, `TRACE`), on a
   * path `handle` does not answer (`undefined` for a target that is no path).
   */
  readonly refuse: (path: string | undefined) => Reply;
  /** The base path the routes are under, `''` for the root. */
  readonly basePath: string;
  /** The origin of the store's `publicUrl`, when it has one. */
  readonly publicOrigin: string | undefined;
  /** The store's routes under a mount path: they answer full paths (`/api/plants`). */
  readonly under: (prefix: string) => (request: Request) => Promise<Response>;
}

const records = new WeakMap<object, StoreRoutes>();

/** Records the routes a store's handler serves (or a wrapper that keeps them). */
export function recordRoutes(handler: object, routes: StoreRoutes): void {
  records.set(handler, routes);
}

/** The routes of a handler a plant store made, or `withDocs` of one; else `undefined`. */
export function routesOf(handler: unknown): StoreRoutes | undefined {
  return typeof handler === 'function' ? records.get(handler) : undefined;
}

/**
 * A store's `fetch` for requests whose paths start with `prefix` (`''` for the root): its routes
 * are `<prefix><basePath>/plants` and so on, and its document names the prefix. A store not made
 * by `createPlantStore` gets the request with the prefix taken off its URL.
 *
 * @throws {TypeError} When `store` has no `fetch`, or `prefix` is no URL path.
 */
export function fetchUnder(
  store: PlantStore,
  prefix: string,
): (request: Request) => Promise<Response> {
  if (typeof store?.fetch !== 'function') {
    throw new TypeError('needs a store from createPlantStore (an object with a fetch method)');
  }
  checkBasePath(prefix, 'the mount path');
  const routes = routesOf(store.fetch);
  if (routes !== undefined) return routes.under(prefix);
  if (prefix === '') return (request) => store.fetch(request);
  return (request) => {
    const path = pathOf(request.url);
    if (!path.startsWith(prefix)) return store.fetch(request);
    const url = new URL(request.url);
    url.pathname = path.slice(prefix.length) || '/';
    const { method, headers, body, signal } = request;
    // A streamed body needs `duplex: 'half'` on Node.
    const init = { method, headers, body, signal, duplex: 'half' } as RequestInit;
    return store.fetch(new Request(url, init));
  };
}
