/**
 * The public types of `plant-store/node`: the handler it serves, the listener it makes, and the
 * options and handle of `toNodeListener` and `serve`.
 *
 * @module
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

import type { FetchHandler } from '../types.ts';

/**
 * A request listener, as `http.createServer`, Express, and `http2.createServer` and
 * `http2.createSecureServer` take it: it serves HTTP/1.1 and HTTP/2's compatibility API alike.
 */
export type NodeListener = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

/** Options of `toNodeListener`. */
export interface ToNodeListenerOptions {
  /**
   * The callback that hears about a handler that threw (or returned something other than a
   * `Response`) and about a response body that failed while streaming. A client that went away
   * is not reported. One that throws or rejects is written to stderr, never to the process.
   * @default console.error
   */
  readonly onError?: ((error: unknown) => void) | undefined;
  /**
   * The most bytes of a request body the handler left unread that are read and thrown away
   * after the response, so the connection can serve its next request; past it the connection
   * is closed.
   * @default 1048576
   */
  readonly maxDrainBytes?: number | undefined;
  /**
   * The longest time, in milliseconds, spent draining a request body the handler left unread;
   * past it the connection is closed.
   * @default 2000
   */
  readonly drainTimeout?: number | undefined;
}

/** Options of `serve`: the handler, where to listen, the server's limits and the listener's options. */
export interface ServeOptions extends ToNodeListenerOptions {
  /** The handler that answers every request. */
  readonly fetch: FetchHandler;
  /**
   * The port to listen on; `0` picks a free one (read it from the handle).
   * @default 3000
   */
  readonly port?: number | undefined;
  /**
   * The interface to listen on.
   * @default '127.0.0.1'
   */
  readonly host?: string | undefined;
  /**
   * The time, in milliseconds, a client has to send the request headers; a slower client
   * (slowloris) is disconnected. At least 1 (node reads `0` as "never"). See
   * [`server.headersTimeout`](https://nodejs.org/api/http.html#serverheaderstimeout).
   * @default 10000
   */
  readonly headersTimeout?: number | undefined;
  /**
   * The time, in milliseconds, a client has to send the whole request, body included. At least
   * `headersTimeout` (so never `0`, which node reads as "never"). See
   * [`server.requestTimeout`](https://nodejs.org/api/http.html#serverrequesttimeout).
   * @default 30000
   */
  readonly requestTimeout?: number | undefined;
  /**
   * The time, in milliseconds, an idle keep-alive connection stays open; at least 1. See
   * [`server.keepAliveTimeout`](https://nodejs.org/api/http.html#serverkeepalivetimeout).
   * @default 5000
   */
  readonly keepAliveTimeout?: number | undefined;
  /**
   * The largest request head (request line and headers), in bytes; a larger one gets `431`.
   * @default 16384
   */
  readonly maxHeaderSize?: number | undefined;
  /**
   * How often, in milliseconds, the server checks `headersTimeout` and `requestTimeout`; a
   * timeout fires up to this much late. At least 1.
   * @default 1000
   */
  readonly connectionsCheckingInterval?: number | undefined;
  /**
   * The time, in milliseconds, `close()` lets in-flight requests finish before it cuts their
   * connections.
   * @default 10000
   */
  readonly shutdownTimeout?: number | undefined;
  /**
   * The most connections open at once. Each holds a file descriptor and memory: the cap keeps a
   * flood of them from exhausting either. At the cap, a new connection makes room by closing
   * the idle keep-alive connection that has been idle the longest (as nginx does); only when
   * every open connection is busy (a request being read or answered, a response being written)
   * is the new one closed unanswered, and `onConnectionRefused` told. Never more than the
   * process's open-file limit leaves room for (read on Linux, less 128 descriptors for
   * everything else): `ServeHandle.maxConnections` is the cap in effect.
   * @default 4096
   */
  readonly maxConnections?: number | undefined;
  /**
   * Called for each new connection refused at `maxConnections` because every open connection
   * was busy: for a count and a (rate-limited) log. A throw or a rejection goes to `onError`.
   */
  readonly onConnectionRefused?: (() => void) | undefined;
  /**
   * Gives every request an `X-Request-Id`: the client's when it is 1-200 visible ASCII
   * characters, else a new one (`3f9a0c71e2b4-2a`: a random prefix per process, then a
   * hexadecimal counter). It is sent back on every response (and on the answers to requests the
   * parser rejects), reaches the handler's `Request` and a store's `onError` context. Setting it
   * per response costs a little: off unless asked.
   * @default false
   */
  readonly requestIds?: boolean | undefined;
  /**
   * Called as each request arrives (for a count of requests in flight). A throw or a rejection
   * goes to `onError`; the request is still answered.
   */
  readonly onRequestStart?: (() => void) | undefined;
  /**
   * Called once per request when it is over, answered or not: for an access log and metrics.
   * A throw or a rejection goes to `onError`, never to the process.
   */
  readonly onRequestEnd?: ((record: RequestRecord) => void) | undefined;
}

/** What `serve` tells `onRequestEnd` about a request once it is over. */
export interface RequestRecord {
  /** Its `X-Request-Id`, with `requestIds` on. */
  readonly requestId: string | undefined;
  /** The method, as sent (empty when the parser rejected the request before reading it). */
  readonly method: string;
  /** The request target's path, without the query (empty as for the method). */
  readonly path: string;
  /** The response's status, `0` when the connection closed before it was sent. */
  readonly status: number;
  /** From the request's head arriving to the response's end, in milliseconds. */
  readonly durationMs: number;
  /**
   * The bytes the connection received for it since the previous request on it ended: its head
   * and body (a request pipelined behind it may count toward it).
   */
  readonly bytesIn: number;
  /** The bytes the connection sent for it: the response's head and body. */
  readonly bytesOut: number;
}

/** A running server, as `serve` hands it back. */
export interface ServeHandle {
  /** The URL the server answers on, with the real port, such as `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The real port: the one asked for, or the free one picked for `0`. */
  readonly port: number;
  /** The underlying `node:http` server. */
  readonly server: Server;
  /**
   * The connection cap in effect: `maxConnections`, lowered when the process's open-file limit
   * leaves room for fewer. (`server.maxConnections` is `serve`'s to move: it lets one more
   * connection in per idle one.)
   */
  readonly maxConnections: number;
  /**
   * The graceful stop: stop accepting, let in-flight requests finish (up to
   * `shutdownTimeout`), close idle connections; resolves when every connection is closed.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
}
