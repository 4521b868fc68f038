import { checkOptionNames } from '../guards/check-option-names.ts';
import { recordRoutes, routesOf } from '../store/store-routes.ts';
import { pathOf } from '../store/url-path.ts';
import { DOCS_OPTIONS, docsHandler, isDocsFile } from './create-docs-handler.ts';
import type { FetchHandler } from '../types.ts';
import type { CreateDocsHandlerOptions } from './types.ts';

/**
 * Puts the interactive API reference in front of a fetch handler.
 *
 * `GET <path>`, `<path>/` and the page's files below it go to `createDocsHandler(options)`,
 * everything else to `fetch`. In front of a plant store's `fetch`, the page follows the store's
 * `basePath` (at `<basePath>/docs` by default, rendering `<basePath>/openapi.json`) and may call
 * its `publicUrl`.
 *
 * @param fetch The handler behind the page, such as `store.fetch`.
 * @param options The page's options, as `createDocsHandler` takes them; `path` and `documentUrl`
 *   default to the store's base path followed by `/docs` and `/openapi.json`.
 * @returns The combined handler.
 * @throws {TypeError} When `fetch` is not a function, or an option is malformed or its name
 *   unknown.
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { withDocs } from 'plant-store/docs';
 *
 * const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
 * Deno.serve(withDocs(store.fetch)); // /docs, /openapi.json and POST /plants
 * ```
 */
export function withDocs(
  fetch: FetchHandler,
  options: CreateDocsHandlerOptions = {},
): (request: Request) => Promise<Response> {
  if (typeof fetch !== 'function') throw new TypeError('withDocs needs a fetch handler function');
  checkOptionNames('withDocs', options, DOCS_OPTIONS);
  const store = routesOf(fetch);
  const base = store?.basePath ?? '';
  const path = options?.path ?? `${base}/docs`;
  const documentUrl = options?.documentUrl ?? `${base}/openapi.json`;
  const publicUrl = store?.publicUrl;
  const origin = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  const docs = docsHandler({ ...options, path, documentUrl }, origin);
  const below = `${path}/`;
  const combined = async (request: Request): Promise<Response> => {
    const pathname = pathOf(request.url);
    if (
      pathname === path ||
      (pathname.startsWith(below) &&
        (pathname.length === below.length || isDocsFile(pathname.slice(below.length))))
    ) {
      return docs(request);
    }
    return fetch(request);
  };
  // The store's plain route stays the store's unless it is one of the page's paths.
  if (store?.path !== undefined && store.path !== path && !store.path.startsWith(below)) {
    recordRoutes(combined, store);
  }
  return combined;
}
