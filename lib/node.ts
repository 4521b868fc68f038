/**
 * `plant-store/node`: any fetch handler over `node:http`: `toNodeListener` for `http.createServer`
 * or a host such as Express, `serve` for a server safe on the open internet that closes gracefully.
 * @module
 */

export { DEFAULT_MAX_CONNECTIONS } from './node/connection.ts';
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  serve,
} from './node/serve.ts';
export { toNodeListener } from './node/to-node-listener.ts';
export type {
  NodeListener,
  RequestRecord,
  ServeHandle,
  ServeOptions,
  ToNodeListenerOptions,
} from './node/types.ts';
