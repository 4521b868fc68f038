import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import { callHook } from '../guards/call-hook.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { MAX_TIMER_MS } from '../guards/timer-limit.ts';
import { routesOf } from '../store/store-routes.ts';
import type { FetchHandler } from '../types.ts';
import { answerFetch, answerPlain } from './answer.ts';
import { NodeRequest } from './node-request.ts';
import type { ListenerConfig, NodeListener, ToNodeListenerOptions } from './types.ts';

export const LISTENER_OPTIONS = ['onError', 'maxDrainBytes', 'drainTimeout'] as const;

/** `toNodeListener`'s default `maxDrainBytes`: 1 MiB. */
export const DEFAULT_MAX_DRAIN_BYTES = 1_048_576;
/** `toNodeListener`'s default `drainTimeout`: 2 s. */
export const DEFAULT_DRAIN_TIMEOUT = 2000;

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
  return listenerFor(handler, listenerConfigOf(options));
}

/** The listener's settings, checked, each with its default. */
export function listenerConfigOf(options: ToNodeListenerOptions): ListenerConfig {
  const onError = options.onError ?? defaultOnError;
  if (typeof onError !== 'function') throw new TypeError('onError must be a function');
  return {
    // A broken onError must not crash the server: its own failure goes to stderr.
    onError: (error) => callHook(onError, error),
    maxDrainBytes: count(options.maxDrainBytes, DEFAULT_MAX_DRAIN_BYTES, 'maxDrainBytes'),
    drainTimeout: milliseconds(options.drainTimeout, DEFAULT_DRAIN_TIMEOUT, 'drainTimeout'),
  };
}

/** The listener for `handler`, with settings already checked. */
export function listenerFor(handler: FetchHandler, config: ListenerConfig): NodeListener {
  // A plant store's routes answer the adapter's request as it is, with no `Request` made.
  const routes = routesOf(handler);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const request = new NodeRequest(req, res, req, routes?.path);
    const path = request.path;
    if (routes !== undefined && path !== undefined && (routes.path ?? path) === path) {
      answerPlain(routes.handle, request, req, res, config);
    } else if (!UNREPRESENTABLE_METHODS.has(request.method)) {
      answerFetch(handler, request, req, res, config);
    } else {
      // A plant store routes such a method as any it does not serve; another handler gets a 501.
      const reply =
        routes?.rejectMethod(path) ??
        errorReply('ERR_NOT_IMPLEMENTED', `the method ${request.method} is not implemented`);
      answerPlain((_, answer) => answer(reply), request, req, res, config);
    }
  };
  // HTTP/2's compatibility objects stand in for HTTP/1.1's; `http2.ts` handles where they differ.
  return listener as NodeListener;
}

export function defaultOnError(error: unknown): void {
  console.error(error);
}

/**
 * An integer option of at least `min`, or its default when unset. Timeouts take `min` 1: to node,
 * `0` means "never", which turns a protection off.
 */
export function count(
  value: number | undefined,
  fallback: number,
  name: string,
  min: 0 | 1 = 0,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`${name} must be a ${min === 0 ? 'non-negative' : 'positive'} integer`);
  }
  return value;
}

/** A time in milliseconds: `count`'s, and no longer than a timer holds (node fires a longer one at once). */
export function milliseconds(
  value: number | undefined,
  fallback: number,
  name: string,
  min: 0 | 1 = 0,
): number {
  const ms = count(value, fallback, name, min);
  if (ms > MAX_TIMER_MS) throw new TypeError(`${name} must be at most ${MAX_TIMER_MS} ms`);
  return ms;
}
