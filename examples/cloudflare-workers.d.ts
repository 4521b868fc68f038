// The one export of Workers' own module the Worker example uses; the project type-checks with
// Node's types, and @cloudflare/workers-types is not installed.
declare module 'cloudflare:workers' {
  /** The Worker's bindings: here its `API_TOKEN` secret. */
  export const env: { readonly API_TOKEN: string };
}
