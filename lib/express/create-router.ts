import express, { type Router } from 'express';
import { withDocs } from '../docs.ts';
import { type NodeListener, toNodeListener } from '../node.ts';
import { handlersUnder, NOT_FOUND } from '../node/answer.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { replyResponse } from '../errors.ts';
import { fetchUnder, routesOf } from '../store/store-routes.ts';
import type { PlantStore } from '../types.ts';

/** Options of `createRouter`. */
export interface CreateRouterOptions {
  /**
   * Whether to serve the interactive API reference at `<mount path><basePath>/docs` too.
   * @default false
   */
  readonly docs?: boolean | undefined;
}

/**
 * Creates an Express `Router` serving a plant store under its mount path and its `basePath`.
 *
 * `app.use('/api', createRouter(store))` answers `POST /api/plants`, `GET /api/openapi.json` (its
 * server `.` resolves to `/api`) and, with `docs: true`, the reference at `/api/docs`; a mount
 * path with parameters (`/:tenant`) is served per request. Other paths go on to the app's next
 * handlers. Every answer, errors included, is the store's. Mount it before the app's body
 * parsers: the store reads the raw body itself, and behind one a create gets `500`
 * (`ERR_BODY_ALREADY_READ` to `onError`). The Express request is `context.host` for the store's
 * collaborators.
 *
 * @param store The store to serve, from `createPlantStore`.
 * @param options Whether to serve the reference page.
 * @returns The router, for `app.use`.
 * @throws {TypeError} When `store` has no `fetch`, an option's name is unknown, or the `express`
 *   found is older than 4.17.
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
  checkExpress(express);
  checkOptionNames('createRouter', options, ['docs']);
  const docs = options?.docs === true;
  // Checked now, so a wrong store fails here rather than on the first request.
  fetchUnder(store, '');
  const base = routesOf(store.fetch)?.basePath ?? '';
  const plants = `${base}/plants`;
  const document = `${base}/openapi.json`;
  const page = `${base}/docs`;
  const listenerFor = handlersUnder((prefix) => {
    const api = fetchUnder(store, prefix);
    return toNodeListener(docs ? withDocs(api) : api);
  });

  const router = express.Router();
  router.use((req, res, next) => {
    const path = req.path;
    const owned =
      path === plants ||
      path === document ||
      (docs && (path === page || path.startsWith(`${page}/`)));
    if (!owned) {
      next();
      return;
    }
    // The store routes the whole path: the mount path is part of its routes and its document.
    req.url = req.originalUrl;
    (listenerFor(req.baseUrl) ?? notFound)(req, res);
  });
  return router;
}

const notFound: NodeListener = toNodeListener(() => replyResponse(NOT_FOUND));

/** `express.raw` came in 4.17, the oldest Express the package is tested with. */
function checkExpress(found: unknown): void {
  const { Router, raw } = (found ?? {}) as { Router?: unknown; raw?: unknown };
  if (typeof Router !== 'function' || typeof raw !== 'function') {
    throw new TypeError(
      'plant-store/express needs Express 4.17 or later (or 5); the express package it found is ' +
        'older: upgrade express, or serve the store with plant-store/node',
    );
  }
}
