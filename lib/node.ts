/**
 * `plant-store/node`: serves any web-standard fetch handler over `node:http`. `toNodeListener`
 * turns the handler into a request listener for `http.createServer` or a host such as Express;
 * `serve` starts a server with defaults that are safe on the open internet and hands back a
 * handle whose `close()` drains gracefully.
 *
 * The only entry of plant-store that imports `node:*`, so Deno, Bun and workers never load it.
 *
 * @module
 */

export { serve } from './node/serve.ts';
export { toNodeListener } from './node/to-node-listener.ts';
export type {
  NodeListener,
  RequestRecord,
  ServeHandle,
  ServeOptions,
  ToNodeListenerOptions,
} from './node/types.ts';
