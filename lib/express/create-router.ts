import express, { type ErrorRequestHandler, type Router } from 'express';
import { withDocs } from '../docs.ts';
import { type NodeListener, toNodeListener } from '../node.ts';
import { handlersUnder, NOT_FOUND } from '../node/answer.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { errorReply, replyResponse } from '../errors.ts';
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
 * path with parameters (`/:tenant`) is served per request (with `createErrorHandler` for a mount
 * path Express cannot decode). Other paths go on to the app's next handlers. Every answer, errors
 * included, is the store's. Mount it before the app's body parsers: the store reads the raw body
 * itself, and behind one a create gets `500` (`ERR_BODY_ALREADY_READ` to `onError`). The Express
 * request is `context.host` for the store's collaborators.
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

  const serves = (path: string): boolean =>
    path === plants ||
    path === document ||
    (docs && (path === page || path.startsWith(`${page}/`)));

  const router = express.Router();
  router.use((req, res, next) => {
    if (!serves(req.path)) {
      next();
      return;
    }
    // The store routes the whole path: the mount path is part of its routes and its document.
    req.url = req.originalUrl;
    (listenerFor(req.baseUrl) ?? notFound)(req, res);
  });
  routersServing.set(router, serves);
  return router;
}

/**
 * Creates an Express error handler that answers, for a router from `createRouter`, the paths
 * Express could not decode before the router ran.
 *
 * Express decodes a mount path's parameters while matching it, so under `/:tenant` a path such as
 * `/%ZZ/plants` fails before the router sees it, and Express answers its own HTML `400`. Added
 * after the router, at the app's root, this handler answers such a path, when it ends in one of
 * the router's routes, with the Error body (`400`, `ERR_BAD_REQUEST`). Every other error goes on
 * to the app's next error handler unchanged, a path of the app's own that Express could not
 * decode included.
 *
 * @param router The router, from `createRouter`.
 * @returns The error handler, for `app.use` after the router.
 * @throws {TypeError} When `router` is not from `createRouter`.
 * @example
 * ```ts
 * import express from 'express';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createErrorHandler, createRouter } from 'plant-store/express';
 *
 * const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
 * const plants = createRouter(store);
 * const app = express();
 * app.use('/:tenant', plants);
 * app.use(createErrorHandler(plants)); // at the root: under /:tenant it would not match either
 * app.listen(3000);
 * ```
 */
export function createErrorHandler(router: Router): ErrorRequestHandler {
  const serves = routersServing.get(router);
  if (serves === undefined) {
    throw new TypeError('createErrorHandler needs the router createRouter made');
  }
  return (error: unknown, req, res, next) => {
    if (isUndecodedParameter(error) && !res.headersSent && endsInRoute(req.path, serves)) {
      undecodablePath(req, res);
      return;
    }
    next(error);
  };
}

/** What each router of `createRouter` serves, as a path below its mount path. */
const routersServing = new WeakMap<Router, (path: string) => boolean>();

/** Express 4 and 5 raise a `URIError` with status `400` for a parameter they cannot decode. */
function isUndecodedParameter(error: unknown): boolean {
  // The host's error is only looked at: one whose prototype or status throws goes on as it is.
  try {
    return error instanceof URIError && (error as { status?: unknown }).status === 400;
  } catch {
    return false;
  }
}

/** Whether some mount path, one segment or more, leaves a path the router serves. */
function endsInRoute(path: string, serves: (path: string) => boolean): boolean {
  for (let slash = path.indexOf('/', 1); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    if (serves(path.slice(slash))) return true;
  }
  return false;
}

const undecodablePath: NodeListener = toNodeListener(() =>
  replyResponse(
    errorReply('ERR_BAD_REQUEST', 'the request path is not valid percent-encoded UTF-8'),
  ),
);

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
