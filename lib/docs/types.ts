/**
 * The public types of `plant-store/docs`: the options of the reference page's handler.
 *
 * @module
 */

/** Options of `createDocsHandler` and `withDocs`. */
export interface CreateDocsHandlerOptions {
  /**
   * The URL path the page is reached at, as the browser sees it: the page's asset URLs start
   * with it. Starts with `/`, no trailing slash.
   * @default '/docs'
   */
  readonly path?: string;
  /**
   * The URL of the OpenAPI document the page renders: a path on the same server (the page's
   * "try it" then calls the server the document names), or an absolute http(s) URL.
   * @default '/openapi.json'
   */
  readonly documentUrl?: string;
  /**
   * The page's title.
   * @default 'OpenAPI Plant Store: API reference'
   */
  readonly title?: string;
  /**
   * The callback that hears about an error while serving the page's assets (the packed
   * renderer missing from the install, say); the client gets `500 internal error`.
   * @default console.error
   */
  readonly onError?: (error: unknown) => void;
}
