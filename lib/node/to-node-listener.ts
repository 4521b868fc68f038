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

export const LISTENER_OPTIONS = ['onError', 'maxDrainBytes', 'drainTimeout'] as const;

/** The methods fetch forbids in a `Request` (https://fetch.spec.whatwg.org/#forbidden-method). */
const UNREPRESENTABLE_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * Makes a fetch handler a request listener for `node:http` (or `node:http2`'s compatibility API).
 *
 * Each request becomes a native `Request` (a missing or malformed `Host` is a `400` Error body);
 * `request.signal` aborts when the client leaves before the response is finished. The `Response`
 * is streamed with backpressure; a handler that throws gets a `500` Error body. A request body the
 * handler left unread is drained within `maxDrainBytes` and `drainTimeout`, else the connection
 * closes. The listener uses `req.url`, so under Express it sees the path below its mount point;
 * server limits (timeouts, header size) are `serve`'s.
 *
 * @param handler The handler that answers every request.
 * @param options The error callback and the drain limits.
 * @returns A listener for `http.createServer`, `app.use` or `http2.createSecureServer`.
 * @throws {TypeError} When `handler` is not a function, or an option is unknown or out of range.
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
  // A plant store's routes answer the adapter's request as it is, with no `Request` made.
  const plain = routesOf(handler);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const request = new NodeRequest(req, res, req, plain?.path);
    // Node reads nothing more on a connection after an upgrade request: close it after the answer.
    if (request.upgrade) res.shouldKeepAlive = false;
    const problem = request.problem;
    if (problem !== undefined) {
      // Where such a request's body ends may be unknown: the connection closes after the answer.
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
      answer(req, res, config, unrepresentableMethodReply(plain, request));
      return;
    }
    // `respond` catches what it can; this is the last guard against an unhandled rejection.
    respond(handler, request, req, res, config).then(
      () => handedOver(res),
      (error) => lastResort(config, res, error),
    );
  };
  // HTTP/2's compatibility objects stand in for HTTP/1.1's; `http2.ts` handles where they differ.
  return listener as NodeListener;
}

/** A plant store routes such a method as any it does not serve; another handler gets a `501`. */
function unrepresentableMethodReply(plain: StoreRoutes | undefined, request: NodeRequest): Reply {
  return (
    plain?.rejectMethod(request.path) ??
    errorReply('ERR_NOT_IMPLEMENTED', `the method ${request.method} is not implemented`)
  );
}

/** Sends a plain reply; an unread request body is drained after it, or the connection closes. */
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
