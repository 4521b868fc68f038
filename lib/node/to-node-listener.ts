/**
 * `toNodeListener`: any fetch handler as a `node:http` request listener. A plant store's own
 * routes take the fast path (`plain-path.ts`); everything else the generic one (`respond.ts`).
 *
 * @module
 */

import { plainHandlerOf } from '../store/plain-handler.ts';
import {
  count,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_DRAIN_BYTES,
  defaultOnError,
  type ListenerConfig,
  lastResort,
} from './listener-config.ts';
import { checkOptionNames } from '../options/check-option-names.ts';
import { handedOver } from './connection.ts';
import { answerPlain, pathOf } from './plain-path.ts';
import { respond } from './respond.ts';
import type { FetchHandler, NodeListener, ToNodeListenerOptions } from './types.ts';

/** Every option `toNodeListener` takes. */
export const LISTENER_OPTIONS = ['onError', 'maxDrainBytes', 'drainTimeout'] as const;

/**
 * Turns a fetch handler into a `node:http` request listener.
 *
 * Each request becomes a native `Request`: its URL from the `Host` header and the request
 * target (a missing, repeated or malformed `Host` is a `400` Error body), its headers from
 * `rawHeaders` (repeated ones kept), its body (none for GET and HEAD, or when the headers
 * announce none) a `ReadableStream` that reads the socket only as fast as the handler reads it.
 * `request.signal` aborts when the client goes away before the response is finished.
 *
 * The `Response` is written with its status and headers once (several `Set-Cookie` stay
 * separate) and its body streamed with backpressure; HEAD sends no body. A handler that throws
 * gets a `500` Error body; a body that fails after the headers were sent destroys the
 * connection. The listener never rejects and never writes a second response. A request body the
 * handler left unread is drained within `maxDrainBytes` and `drainTimeout`, else the connection
 * is closed.
 *
 * The listener uses `req.url` as the path, so under Express it sees the path below its mount
 * point. Server limits (timeouts, header size) belong to the server: see `serve`.
 *
 * @param handler The handler that answers every request.
 * @param options The error callback and the drain limits.
 * @returns A listener for `http.createServer(listener)` or `app.use(listener)`.
 * @throws {TypeError} When `handler` is not a function, an option is not a non-negative integer,
 *   or an option's name is unknown (the nearest known one is named).
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toNodeListener } from 'plant-store/node';
 *
 * const server = createServer(toNodeListener((request) => new Response(`hello ${request.url}`)));
 * server.listen(3000, '127.0.0.1');
 * ```
 */
export function toNodeListener(
  handler: FetchHandler,
  options: ToNodeListenerOptions = {},
): NodeListener {
  if (typeof handler !== 'function') {
    throw new TypeError('toNodeListener needs a fetch handler function');
  }
  checkOptionNames('toNodeListener', options, LISTENER_OPTIONS);
  const onError = options.onError ?? defaultOnError;
  if (typeof onError !== 'function') throw new TypeError('onError must be a function');
  const config: ListenerConfig = {
    onError,
    maxDrainBytes: count(options.maxDrainBytes, DEFAULT_MAX_DRAIN_BYTES, 'maxDrainBytes'),
    drainTimeout: count(options.drainTimeout, DEFAULT_DRAIN_TIMEOUT, 'drainTimeout'),
  };
  // A plant store's own routes are answered on plain values: no Request, no Response.
  const plain = plainHandlerOf(handler);
  return (req, res) => {
    if (plain !== undefined) {
      const path = pathOf(req.url);
      if (path !== undefined && (plain.path === undefined || plain.path === path)) {
        try {
          answerPlain(plain, req, res, config);
        } catch (error) {
          lastResort(config, res, error);
        }
        return;
      }
    }
    // `respond` catches what it can; this catch is the last guard against an unhandled rejection.
    respond(handler, req, res, config).then(
      () => handedOver(res),
      (error) => lastResort(config, res, error),
    );
  };
}
