import type { Server } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { guardHook } from '../guards/call-hook.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { DEFAULT_MAX_CONNECTIONS, maxConnectionsFor } from './connection.ts';
import { observerOf } from './observe.ts';
import { http1Server } from './serve-http1.ts';
import { http2Server } from './serve-http2.ts';
import {
  count,
  LISTENER_OPTIONS,
  listenerConfigOf,
  listenerFor,
  milliseconds,
} from './to-node-listener.ts';
import type { ServeHandle, ServeOptions, ServerLimits } from './types.ts';

const SERVE_OPTIONS = [
  'fetch',
  'port',
  'host',
  'http2',
  'headersTimeout',
  'requestTimeout',
  'keepAliveTimeout',
  'maxHeaderSize',
  'connectionsCheckingInterval',
  'shutdownTimeout',
  'shutdownDelay',
  'maxConnections',
  'onConnectionRefused',
  'requestIds',
  'onRequestStart',
  'onRequestEnd',
  ...LISTENER_OPTIONS,
];

/** `serve`'s default `port`. */
export const DEFAULT_PORT = 3000;
/** `serve`'s default `host`: loopback only, so nothing is reachable from elsewhere by accident. */
export const DEFAULT_HOST = '127.0.0.1';
/** `serve`'s default `headersTimeout`: the time a client has to send its headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** `serve`'s default `requestTimeout`: the time a client has to send its whole request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** `serve`'s default `shutdownTimeout`: the time `close()` lets requests in flight finish. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** How often `close()` looks for connections that became idle. */
const SHUTDOWN_SWEEP_INTERVAL = 50;

/**
 * Starts an HTTP server for a fetch handler, with limits that are safe on the open internet.
 *
 * The server listens on `127.0.0.1:3000` unless told otherwise and answers through
 * `toNodeListener`. Malformed HTTP gets a `400` Error body, a head over `maxHeaderSize` a `431`;
 * a client too slow to send its headers (`headersTimeout`) or its request (`requestTimeout`) is
 * disconnected. The handle's `close()` stops accepting and lets in-flight requests finish. With
 * `http2: true` it speaks HTTP/2 without TLS (h2c) instead.
 *
 * @param options The handler, the address and the limits; every limit has a safe default.
 * @returns The running server's handle; rejects when the server cannot listen.
 * @throws {TypeError} When an option is unknown or out of range, before anything listens.
 * @example
 * ```ts
 * import { serve } from 'plant-store/node';
 *
 * const server = await serve({ fetch: () => Response.json({ ok: true }), port: 0 });
 * console.log(`listening on ${server.url}`);
 * process.once('SIGTERM', () => void server.close());
 * ```
 */
export function serve(options: ServeOptions & { http2?: false }): Promise<ServeHandle>;
export function serve(options: ServeOptions & { http2: true }): Promise<ServeHandle<Http2Server>>;
export function serve(options: ServeOptions): Promise<ServeHandle<Server | Http2Server>>;
export function serve(options: ServeOptions): Promise<ServeHandle<Server | Http2Server>> {
  checkOptionNames('serve', options, SERVE_OPTIONS);
  const port = count(options.port, DEFAULT_PORT, 'port');
  if (port > 65535) throw new TypeError('port must be an integer in 0-65535');
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host === '') {
    throw new TypeError('host must be a non-empty string');
  }
  const http2 = options.http2 ?? false;
  if (typeof http2 !== 'boolean') throw new TypeError('http2 must be a boolean');
  if (http2) {
    for (const name of ['headersTimeout', 'connectionsCheckingInterval'] as const) {
      if (options[name] !== undefined) {
        throw new TypeError(
          `${name} is HTTP/1.1's; with http2 use keepAliveTimeout and requestTimeout`,
        );
      }
    }
  }
  const headersTimeout = milliseconds(
    options.headersTimeout,
    DEFAULT_HEADERS_TIMEOUT_MS,
    'headersTimeout',
    1,
  );
  const requestTimeout = milliseconds(
    options.requestTimeout,
    DEFAULT_REQUEST_TIMEOUT_MS,
    'requestTimeout',
    1,
  );
  if (!http2 && headersTimeout > requestTimeout) {
    throw new TypeError('headersTimeout must not exceed requestTimeout');
  }
  const keepAliveTimeout = milliseconds(options.keepAliveTimeout, 5000, 'keepAliveTimeout', 1);
  const maxHeaderSize = count(options.maxHeaderSize, 16_384, 'maxHeaderSize');
  const connectionsCheckingInterval = milliseconds(
    options.connectionsCheckingInterval,
    1000,
    'connectionsCheckingInterval',
    1,
  );
  const shutdownTimeout = milliseconds(
    options.shutdownTimeout,
    DEFAULT_SHUTDOWN_TIMEOUT_MS,
    'shutdownTimeout',
  );
  const shutdownDelay = milliseconds(options.shutdownDelay, 0, 'shutdownDelay');
  const maxConnections = maxConnectionsFor(
    count(options.maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections', 1),
  );
  const { fetch, onConnectionRefused } = options;
  if (typeof fetch !== 'function') throw new TypeError('serve needs a fetch handler function');
  if (onConnectionRefused !== undefined && typeof onConnectionRefused !== 'function') {
    throw new TypeError('onConnectionRefused must be a function');
  }
  const config = listenerConfigOf(options);
  const listener = listenerFor(fetch, config);
  const { onError } = config;
  const observer = observerOf(options, onError);
  const limits: ServerLimits = {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    maxHeaderSize,
    connectionsCheckingInterval,
    maxConnections,
    drainTimeout: config.drainTimeout,
    onRefused:
      onConnectionRefused === undefined ? () => {} : guardHook<void>(onConnectionRefused, onError),
  };
  const protocol = http2
    ? http2Server(listener, limits, observer)
    : http1Server(fetch, listener, limits, observer);
  const { server } = protocol;

  // Closing is a sequence: every answer from now on ends its connection, the server keeps
  // accepting for `shutdownDelay` (a balancer's time to see it leave), then stops, closes each
  // connection once it is idle and cuts the rest after `shutdownTimeout`.
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      protocol.endKeepAlive();
      const closeIdle = (): void => {
        afterNextRead(() => protocol.closeIdle());
      };
      const stop = (): void => {
        const sweep = setInterval(closeIdle, SHUTDOWN_SWEEP_INTERVAL);
        const force = setTimeout(() => protocol.closeAll(), shutdownTimeout);
        sweep.unref();
        force.unref();
        afterNextRead(() => {
          server.close(() => {
            clearInterval(sweep);
            clearTimeout(force);
            resolve();
          });
          // node's HTTP/1.1 close() closes the idle connections too; its HTTP/2 one waits.
          protocol.closeIdle();
        });
      };
      if (shutdownDelay === 0) stop();
      else setTimeout(stop, shutdownDelay);
    });
    return closed;
  };

  return new Promise<ServeHandle<Server | Http2Server>>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', onError);
      const bound = (server.address() as AddressInfo).port;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({ url: `http://${urlHost}:${bound}`, port: bound, server, maxConnections, close });
    });
  });
}

/**
 * Runs `then` once node has read the sockets again: called from an I/O callback, one
 * `setImmediate` still comes before the sockets that became readable meanwhile are read, the
 * second after. A request already on the wire has then made its connection busy.
 */
function afterNextRead(then: () => void): void {
  setImmediate(() => setImmediate(then));
}
