import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2Server, Http2ServerRequest, Http2ServerResponse } from 'node:http2';

import type { FetchHandler } from '../types.ts';

/** A request listener for `http.createServer`, Express, or `node:http2`'s compatibility API. */
export type NodeListener = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

/** The listener's settings, as `toNodeListener` resolved them; `onError` never throws. */
export interface ListenerConfig {
  readonly onError: (error: unknown) => void;
  readonly maxDrainBytes: number;
  readonly drainTimeout: number;
}

/** Options of `toNodeListener`. */
export interface ToNodeListenerOptions {
  /**
   * Hears about a handler that threw or returned no `Response`, and a response body that failed
   * mid-stream; never about a client that went away.
   * @default console.error
   */
  readonly onError?: ((error: unknown) => void) | undefined;
  /**
   * The most bytes of an unread request body drained after the response to keep the connection.
   * @default 1048576
   */
  readonly maxDrainBytes?: number | undefined;
  /**
   * The longest time, in milliseconds, spent draining an unread request body.
   * @default 2000
   */
  readonly drainTimeout?: number | undefined;
}

/** Options of `serve`: the handler, the address, the server's limits and the listener's options. */
export interface ServeOptions extends ToNodeListenerOptions {
  /** The handler that answers every request. */
  readonly fetch: FetchHandler;
  /**
   * The port to listen on; `0` picks a free one.
   * @default 3000
   */
  readonly port?: number | undefined;
  /**
   * The interface to listen on.
   * @default '127.0.0.1'
   */
  readonly host?: string | undefined;
  /**
   * Serves HTTP/2 without TLS (h2c with prior knowledge), as a load balancer or platform that
   * speaks HTTP/2 to its backends sends it, instead of HTTP/1.1. `keepAliveTimeout` closes an
   * idle session, `requestTimeout` resets a stream whose request has not arrived whole in time,
   * `maxHeaderSize` answers `431` as over HTTP/1.1, and past `maxConnections` a connection is
   * refused without closing an idle session for it. `headersTimeout` and
   * `connectionsCheckingInterval` are HTTP/1.1's, refused beside it.
   * @default false
   */
  readonly http2?: boolean | undefined;
  /**
   * Milliseconds a client has to send the request headers (slowloris); at least 1. See
   * [`server.headersTimeout`](https://nodejs.org/api/http.html#serverheaderstimeout).
   * @default 10000
   */
  readonly headersTimeout?: number | undefined;
  /**
   * Milliseconds a client has to send the whole request; at least `headersTimeout`. See
   * [`server.requestTimeout`](https://nodejs.org/api/http.html#serverrequesttimeout).
   * @default 30000
   */
  readonly requestTimeout?: number | undefined;
  /**
   * Milliseconds an idle keep-alive connection stays open; at least 1. See
   * [`server.keepAliveTimeout`](https://nodejs.org/api/http.html#serverkeepalivetimeout).
   * @default 5000
   */
  readonly keepAliveTimeout?: number | undefined;
  /**
   * The largest request head, in bytes; a larger one gets `431`.
   * @default 16384
   */
  readonly maxHeaderSize?: number | undefined;
  /**
   * How often, in milliseconds, the request timeouts are checked; at least 1.
   * @default 1000
   */
  readonly connectionsCheckingInterval?: number | undefined;
  /**
   * Milliseconds `close()` keeps accepting and serving before it stops, every answer saying
   * `Connection: close`: the time a load balancer needs to see the instance leave (its health
   * check failing) and stop sending it requests. `0` stops accepting at once.
   * @default 0
   */
  readonly shutdownDelay?: number | undefined;
  /**
   * Milliseconds `close()` lets in-flight requests finish, once it stopped accepting, before it
   * cuts their connections.
   * @default 10000
   */
  readonly shutdownTimeout?: number | undefined;
  /**
   * The most connections open at once, lowered to fit the open-file limit. At the cap the
   * longest-idle keep-alive connection makes room; only when all are busy is a new one refused.
   * @default 4096
   */
  readonly maxConnections?: number | undefined;
  /** Called for each connection refused at `maxConnections`; a throw goes to `onError`. */
  readonly onConnectionRefused?: (() => void) | undefined;
  /**
   * Gives every request and response an `X-Request-Id`: the client's when it is 1-200 visible
   * ASCII characters, else a new one.
   * @default false
   */
  readonly requestIds?: boolean | undefined;
  /** Called as each request arrives; a throw goes to `onError`. */
  readonly onRequestStart?: (() => void) | undefined;
  /** Called once per request when it is over, answered or not; a throw goes to `onError`. */
  readonly onRequestEnd?: ((record: RequestRecord) => void) | undefined;
}

/** What `onRequestEnd` hears about a request once it is over. */
export interface RequestRecord {
  /** Its `X-Request-Id`, with `requestIds` on. */
  readonly requestId: string | undefined;
  /** The method, empty when the parser rejected the request. */
  readonly method: string;
  /** The request target's path, without the query. */
  readonly path: string;
  /** The response's status, `0` when the connection closed before it was sent. */
  readonly status: number;
  /** From the request's head arriving to the response's end, in milliseconds. */
  readonly durationMs: number;
  /**
   * The bytes received for it since the previous request on the connection ended; `0` over
   * HTTP/2, where a connection's bytes are shared by its streams.
   */
  readonly bytesIn: number;
  /** The bytes sent for it: the response's head and body; `0` over HTTP/2. */
  readonly bytesOut: number;
}

/** A running server, as `serve` hands it back: `S` is its `node:http` or `node:http2` server. */
export interface ServeHandle<S extends Server | Http2Server = Server> {
  /** The URL the server answers on, such as `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The port listened on: the one asked for, or the free one picked for `0`. */
  readonly port: number;
  /** The underlying `node:http` server, or `node:http2`'s with `http2`. */
  readonly server: S;
  /** The connection cap in effect (not `server.maxConnections`, which `serve` moves). */
  readonly maxConnections: number;
  /**
   * Closes gracefully: every answer from then on, and every one in flight that has not begun,
   * says `Connection: close` (over HTTP/2, each session gets GOAWAY: its requests in flight
   * finish, and a new one opens a new connection); after `shutdownDelay` it stops accepting,
   * closes each connection once it is idle (never one whose request already arrived), lets
   * in-flight requests finish up to `shutdownTimeout`, and resolves once every connection is
   * closed. A second call returns the same promise.
   */
  close(): Promise<void>;
}

/** What `close()` asks of `serve`'s server, whichever protocol it speaks. */
export interface ProtocolServer<S extends Server | Http2Server> {
  readonly server: S;
  /** Has every answer from now on end its connection: a closing server's first step. */
  endKeepAlive(): void;
  /** Closes each connection that is idle, never one whose request arrived. */
  closeIdle(): void;
  /** Cuts every connection still open. */
  closeAll(): void;
}

/** `serve`'s limits, resolved. */
export interface ServerLimits {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxHeaderSize: number;
  readonly connectionsCheckingInterval: number;
  readonly maxConnections: number;
  /** How long an unread request body may take to arrive, in milliseconds. */
  readonly drainTimeout: number;
  /** Must not throw. */
  readonly onRefused: () => void;
}
