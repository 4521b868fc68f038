/** Options of `createDocsHandler` and `withDocs`. */
export interface CreateDocsHandlerOptions {
  /**
   * The URL path of the page as the browser sees it, without a trailing slash.
   * @default '/docs'
   */
  readonly path?: string;
  /**
   * The OpenAPI document the page renders: a path on the same server, or an http(s) URL.
   * @default '/openapi.json'
   */
  readonly documentUrl?: string;
  /**
   * The page's title.
   * @default 'OpenAPI Plant Store: API reference'
   */
  readonly title?: string;
  /**
   * Hears about an error serving the page's files; the client gets a `500`.
   * @default console.error
   */
  readonly onError?: (error: unknown) => void;
}
