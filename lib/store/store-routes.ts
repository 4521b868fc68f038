// A private record of a store's routes per handler it makes, for the Node adapter, `withDocs` and
// the framework entries. A host's own wrapper has none: to them it is any fetch handler.

import type { PlainRequest, Reply } from '../operation/plain-request.ts';
import type { PlantStore } from '../types.ts';
import { basePathProblem, refuse } from './api-location.ts';
import { pathOf } from './url-path.ts';

export interface StoreRoutes {
  /** The one path `handle` answers; every path when `undefined`. */
  readonly path?: string | undefined;
  /** Calls `answer` exactly once, and never throws. */
  readonly handle: (request: PlainRequest, answer: (reply: Reply) => void) => void;
  /** The reply to a method no `Request` can carry (`CONNECT`, `TRACE`), `405` or `404` by path. */
  readonly rejectMethod: (path: string | undefined) => Reply;
  /** `''` for the root. */
  readonly basePath: string;
  /** `publicUrl`, without a trailing slash. */
  readonly publicUrl: string | undefined;
  /** The routes under a mount path, answering full paths (`/api/plants`). */
  readonly under: (prefix: string) => (request: Request) => Promise<Response>;
}

const records = new WeakMap<object, StoreRoutes>();

export function recordRoutes(handler: object, routes: StoreRoutes): void {
  records.set(handler, routes);
}

/** The routes of a handler a plant store made, or `withDocs` of one. */
export function routesOf(handler: unknown): StoreRoutes | undefined {
  return typeof handler === 'function' ? records.get(handler) : undefined;
}

/**
 * A store's `fetch` under `prefix`: `<prefix><basePath>/plants`. A store not made by
 * `createPlantStore` gets the request with the prefix taken off its URL.
 */
export function fetchUnder(
  store: PlantStore,
  prefix: string,
): (request: Request) => Promise<Response> {
  if (typeof store?.fetch !== 'function') {
    throw new TypeError('needs a store from createPlantStore (an object with a fetch method)');
  }
  if (prefix !== '') refuse('the mount path', basePathProblem(prefix));
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
