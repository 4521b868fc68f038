/**
 * `plant-store/docs`: the API reference page (Swagger UI, served from the package) as a
 * web-standard handler, or in front of a store's `fetch` with `withDocs`. Loads no `node:*`.
 * @module
 */

export {
  createDocsHandler,
  DEFAULT_DOCS_PATH,
  DEFAULT_DOCUMENT_URL,
} from './docs/create-docs-handler.ts';
export type { CreateDocsHandlerOptions } from './docs/types.ts';
export { withDocs } from './docs/with-docs.ts';
