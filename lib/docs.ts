/**
 * `plant-store/docs`: the interactive API reference (Swagger UI, served from the package) as a
 * web-standard handler, to mount beside a plant store, or in front of its `fetch` with
 * `withDocs`. Runtime-neutral: nothing here loads `node:*`, and the core entry never loads this.
 *
 * @module
 */

export {
  createDocsHandler,
  DEFAULT_DOCS_PATH,
  DEFAULT_DOCUMENT_URL,
} from './docs/create-docs-handler.ts';
export type { CreateDocsHandlerOptions } from './docs/types.ts';
export { withDocs } from './docs/with-docs.ts';
