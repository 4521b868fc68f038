/**
 * `createRouter`: a plant store as an Express `Router`, serving the store's routes under
 * wherever the host mounts it.
 *
 * @module
 */

import express, { type Router } from 'express';
import { withDocs } from '../docs.ts';
import { type NodeListener, toNodeListener } from '../node.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { fetchUnder } from '../store/store-routes.ts';
import type { PlantStore } from '../types.ts';

/** Options of `createRouter`. */
export interface CreateRouterOptions {
  /**
   * Whether to serve the interactive API reference at `<mount path>/docs` too.
   * @default false
   */
  readonly docs?: boolean | undefined;
}

// A router mounted under a path with parameters sees many mount paths; a few are kept.
const KEPT_MOUNT_PATHS = 64;

/**
 * Creates an Express `Router` serving a plant store under its mount path:
 * `app.use('/api', createRouter(store))` answers `POST /api/plants`, `GET /api/openapi.json`
 * (its server names `/api`) and, with `docs: true`, the reference at `/api/docs`. Other paths go
 * on to the app's next handlers.
 *
 * The answers are exactly `store.fetch`'s when the router is mounted before the app's body
 * parsers: the store reads the raw body itself (size limit, strict UTF-8, exact int64 ids).
 * Behind one (`express.json()`), the raw bytes are gone: a create then gets `500` and the
 * store's `onError` hears `ERR_BODY_ALREADY_READ`, naming the fix; never a `200` built from a
 * re-parsed body.
 *
 * @param store The store to serve, from `createPlantStore`.
 * @param options Whether to serve the reference page.
 * @returns The router.
 * @throws {TypeError} When `store` has no `fetch`, or an option's name is unknown.
 * @example
 * ```ts
 * import express from 'express';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createRouter } from 'plant-store/express';
 *
 * const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
 * const app = express();
 * app.use('/api', createRouter(store, { docs: true })); // before express.json()
 * app.use(express.json());
 * app.listen(3000);
 * ```
 */
export function createRouter(store: PlantStore, options: CreateRouterOptions = {}): Router {
  checkOptionNames('createRouter', options, ['docs']);
  const docs = options?.docs === true;
  // Checked now, so a wrong store fails at construction rather than on the first request.
  fetchUnder(store, '');
  const listeners = new Map<string, NodeListener>();

  const listenerFor = (prefix: string): NodeListener => {
    let listener = listeners.get(prefix);
    if (listener === undefined) {
      const api = fetchUnder(store, prefix);
      const handler = docs ? withDocs(api) : api;
      listener = toNodeListener(handler);
      if (listeners.size < KEPT_MOUNT_PATHS) listeners.set(prefix, listener);
    }
    return listener;
  };

  const router = express.Router();
  router.use((req, res, next) => {
    const path = req.path;
    const owned =
      path === '/plants' ||
      path === '/openapi.json' ||
      (docs && (path === '/docs' || path.startsWith('/docs/')));
    if (!owned) {
      next();
      return;
    }
    let listener: NodeListener;
    try {
      listener = listenerFor(req.baseUrl);
    } catch (error) {
      // A mount path that is no plain URL path: the app's error handler says so.
      next(error);
      return;
    }
    // The store routes the whole path: the mount path is part of its routes and its document.
    req.url = req.originalUrl;
    listener(req, res);
  });
  return router;
}
