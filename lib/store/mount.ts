/**
 * A plant store mounted under a prefix a framework decides (Fastify's `prefix`, Express's mount
 * path): the store's routes, document and reference page move under it.
 *
 * @module
 */

import type { PlantStore } from '../types.ts';
import { checkBasePath } from './api-location.ts';
import { pathOf } from './url-path.ts';

/** A store's routes under a prefix: they answer full paths (`/api/plants`). */
type MountedFetch = (request: Request) => Promise<Response>;

const mounts = new WeakMap<object, (prefix: string) => MountedFetch>();

/** Where a store's `fetch` serves, for the reference page put in front of it. */
export interface FetchLocation {
  /** Its base path, `''` for the root. */
  readonly basePath: string;
  /** The origin of its `publicUrl`, when it has one. */
  readonly publicOrigin: string | undefined;
}

const locations = new WeakMap<object, FetchLocation>();

/** Records where a store's `fetch` serves. */
export function registerLocation(fetch: object, location: FetchLocation): void {
  locations.set(fetch, location);
}

/** Where a store's `fetch` serves; `undefined` for any other handler. */
export function locationOf(fetch: unknown): FetchLocation | undefined {
  return typeof fetch === 'function' ? locations.get(fetch) : undefined;
}

/** Records how a store's routes move under a prefix, for `fetchUnder` to find. */
export function registerMount(store: PlantStore, mountAt: (prefix: string) => MountedFetch): void {
  mounts.set(store, mountAt);
}

/**
 * A store's `fetch` for requests whose paths start with `prefix` (`''` for the root): its routes
 * are `<prefix><basePath>/plants` and so on, and its document names the prefix. A store not made
 * by `createPlantStore` gets the request with the prefix taken off its URL.
 *
 * @throws {TypeError} When `store` has no `fetch`, or `prefix` is no URL path.
 */
export function fetchUnder(store: PlantStore, prefix: string): MountedFetch {
  if (typeof store?.fetch !== 'function') {
    throw new TypeError('needs a store from createPlantStore (an object with a fetch method)');
  }
  checkBasePath(prefix, 'the mount path');
  const mountAt = mounts.get(store);
  if (mountAt !== undefined) return mountAt(prefix);
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
