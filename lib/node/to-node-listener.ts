/**
 * `toNodeListener`: any fetch handler as a `node:http` request listener, on one road: each
 * request is read once (`node-request.ts`), checked once, then answered by the plant store's
 * route on plain values or by the handler through a native `Request` (`respond.ts`).
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import type { Reply } from '../operation/plain-request.ts';
import { routesOf, type StoreRoutes } from '../store/store-routes.ts';
import {
  count,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_DRAIN_BYTES,
  defaultOnError,
  type ListenerConfig,
  lastResort,
} from './listener-config.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { handedOver } from './connection.ts';
import { isResponseGone } from './http2.ts';
import { NodeRequest } from './node-request.ts';
import { drainRequest, keepAliveOrClose } from './request-body.ts';
import { respond } from './respond.ts';
import { sendReply } from './send.ts';
import type { FetchHandler } from '../types.ts';
import type { NodeListener, ToNodeListenerOptions } from './types.ts';

/** Every option `toNodeListener` takes. */
export const LISTENER_OPTIONS = ['onError', 'maxDrainBytes', 'drainTimeout'] as const;

/**
 * The methods the fetch standard forbids in a `Request` (https://fetch.spec.whatwg.org/#forbidden-method).
 */
const UNREPRESENTABLE_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

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
 * Handed a plant store's `fetch` or `handleCreatePlant` (or `withDocs` of one), the listener
 * answers the store's operation on plain values, with no `Request` or `Response` made: the
 * answers are the same, only cheaper.
 *
 * The listener uses `req.url` as the path, so under Express it sees the path below its mount
 * point. Server limits (timeouts, header size) belong to the server: see `serve`.
 *
 * On `http2.createServer` and `http2.createSecureServer` (with or without `allowHTTP1`) it
 * answers exactly as over HTTP/1.1: the URL's authority comes from `:authority`, or from `Host`
 * when a client sends only that (one that names another authority is a `400`, RFC 9113 section
 * 8.3.1); a HEADERS frame that ends the stream means no body; connection-specific headers and
 * the status text of a `Response` are dropped; and a body left unread is refused by resetting
 * its stream (NO_ERROR) once the response went out, never the connection.
 *
 * @param handler The handler that answers every request.
 * @param options The error callback and the drain limits.
 * @returns A listener for `http.createServer(listener)`, `app.use(listener)` or
 *   `http2.createSecureServer(options, listener)`.
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
  // A plant store's own routes read the adapter's request as it is and answer plain replies.
  const plain = routesOf(handler);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const request = new NodeRequest(req, res, req, plain?.path);
    // Node reads nothing more on a connection after a request that asks for an upgrade: it is
    // answered, then closed, so no later request waits unanswered on it.
    if (request.upgrade) res.shouldKeepAlive = false;
    const problem = request.problem;
    if (problem !== undefined) {
      // Answered before anything reads the body, which the server may not know how to find the
      // end of: the connection closes after it.
      res.shouldKeepAlive = false;
      sendReply(res, problem);
      handedOver(res);
      return;
    }
    const path = request.path;
    if (
      plain !== undefined &&
      path !== undefined &&
      (plain.path === undefined || plain.path === path)
    ) {
      try {
        plain.handle(request, (reply) => answer(req, res, config, reply));
      } catch (error) {
        lastResort(config, res, error);
      }
      return;
    }
    if (UNREPRESENTABLE_METHODS.has(request.method)) {
      answer(req, res, config, refusal(plain, request));
      return;
    }
    // `respond` catches what it can; this catch is the last guard against an unhandled rejection.
    respond(handler, request, req, res, config).then(
      () => handedOver(res),
      (error) => lastResort(config, res, error),
    );
  };
  // HTTP/2's compatibility request and response stand in for HTTP/1.1's; where they differ,
  // `http2.ts` answers, decided per request.
  return listener as NodeListener;
}

/**
 * The answer to a method no `Request` can carry: a plant store routes it like any other method
 * it does not take; any other handler cannot be handed it.
 */
function refusal(plain: StoreRoutes | undefined, request: NodeRequest): Reply {
  return (
    plain?.refuse(request.path) ??
    errorReply('ERR_NOT_IMPLEMENTED', `the method ${request.method} is not implemented`)
  );
}

/** Sends a plain reply; a request body left unread is drained after it, or the connection closes. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  reply: Reply,
): void {
  try {
    const drain = keepAliveOrClose(req, res, config, reply.status);
    if (!isResponseGone(res)) {
      sendReply(res, reply);
      handedOver(res);
    }
    if (drain) drainRequest(req, undefined, config);
  } catch (error) {
    lastResort(config, res, error);
  }
}
