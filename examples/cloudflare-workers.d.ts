// What `wrangler types` declares in a Worker's project, as far as the Worker example uses it: this
// repository type-checks with Node's types. test/runtimes/wrangler.ts checks the example against
// the real declarations, which wrangler writes from examples/cloudflare-worker/wrangler.jsonc.
declare module 'cloudflare:workers' {
  /** The Worker's bindings: here its `API_TOKEN` secret. */
  export const env: { readonly API_TOKEN: string };
}
