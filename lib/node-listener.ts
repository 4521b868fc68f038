/**
 * The `plant-store/node` subpath: serves any web-standard fetch handler over `node:http`.
 * `toNodeListener` turns the handler into a request listener for `http.createServer` or a host
 * such as Express; `serve` starts a server with defaults that are safe on the open internet and
 * hands back a handle whose `close()` drains gracefully.
 *
 * This is the only module of plant-store that imports `node:*`, so Deno, Bun and workers never
 * load it.
 *
 * @module
 */

import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type BodySink,
  type ClientWatch,
  type PlainHandler,
  plainHandlerOf,
} from './_plain-handler.ts';
import { bodyAlreadyRead } from './_read-body.ts';
import { type ErrorReply, errorReply, JSON_HEADERS } from './errors.ts';

/**
 * A web-standard request handler, such as `PlantStore.fetch`.
 *
 * [MDN `Request`](https://developer.mozilla.org/en-US/docs/Web/API/Request),
 * [MDN `Response`](https://developer.mozilla.org/en-US/docs/Web/API/Response)
 */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A `node:http` request listener, as `http.createServer` and Express take it. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of `toNodeListener`. */
export interface ToNodeListenerOptions {
  /**
   * The callback that hears about a handler that threw (or returned something other than a
   * `Response`) and about a response body that failed while streaming. A client that went away
   * is not reported. It must not throw.
   * @default console.error
   */
  readonly onError?: (error: unknown) => void;
  /**
   * The most bytes of a request body the handler left unread that are read and thrown away
   * after the response, so the connection can serve its next request; past it the connection
   * is closed.
   * @default 1048576
   */
  readonly maxDrainBytes?: number;
  /**
   * The longest time, in milliseconds, spent draining a request body the handler left unread;
   * past it the connection is closed.
   * @default 2000
   */
  readonly drainTimeout?: number;
}

/** Options of `serve`: the handler, where to listen, the server's limits and the listener's options. */
export interface ServeOptions extends ToNodeListenerOptions {
  /** The handler that answers every request. */
  readonly fetch: FetchHandler;
  /**
   * The port to listen on; `0` picks a free one (read it from the handle).
   * @default 3000
   */
  readonly port?: number;
  /**
   * The interface to listen on.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * The time, in milliseconds, a client has to send the request headers; a slower client
   * (slowloris) is disconnected. See
   * [`server.headersTimeout`](https://nodejs.org/api/http.html#serverheaderstimeout).
   * @default 10000
   */
  readonly headersTimeout?: number;
  /**
   * The time, in milliseconds, a client has to send the whole request, body included; `0`
   * turns the limit off. At least `headersTimeout`. See
   * [`server.requestTimeout`](https://nodejs.org/api/http.html#serverrequesttimeout).
   * @default 30000
   */
  readonly requestTimeout?: number;
  /**
   * The time, in milliseconds, an idle keep-alive connection stays open. See
   * [`server.keepAliveTimeout`](https://nodejs.org/api/http.html#serverkeepalivetimeout).
   * @default 5000
   */
  readonly keepAliveTimeout?: number;
  /**
   * The largest request head (request line and headers), in bytes; a larger one gets `431`.
   * @default 16384
   */
  readonly maxHeaderSize?: number;
  /**
   * How often, in milliseconds, the server checks `headersTimeout` and `requestTimeout`; a
   * timeout fires up to this much late.
   * @default 1000
   */
  readonly connectionsCheckingInterval?: number;
  /**
   * The time, in milliseconds, `close()` lets in-flight requests finish before it cuts their
   * connections.
   * @default 10000
   */
  readonly shutdownTimeout?: number;
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
   * The graceful stop: stop accepting, let in-flight requests finish (up to
   * `shutdownTimeout`), close idle connections; resolves when every connection is closed.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_DRAIN_BYTES = 1_048_576;
const DEFAULT_DRAIN_TIMEOUT = 2000;
/** How long a socket the parser rejected may stay open while the client reads the error. */
const REJECTED_SOCKET_LINGER = 1000;
/** How often `close()` looks for connections that became idle. */
const SHUTDOWN_SWEEP_INTERVAL = 50;

/**
 * The Host header's syntax (RFC 9110 section 7.2): a registered name, IPv4 address or IP
 * literal, then an optional port. Checked before it is put in a URL, because a `/`, `?`, `#` or
 * `@` in it would otherwise change the path the handler routes on.
 */
const HOST_PATTERN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::[0-9]{0,5})?$/;

/** The last Host value `isValidHost` accepted. */
let lastValidHost: string | undefined;

/**
 * Whether a Host header value has valid syntax. The last valid value is remembered, so the
 * usual run of requests naming the same host costs a string compare, not a pattern match.
 */
function isValidHost(host: string | undefined): host is string {
  if (host === undefined) return false;
  if (host === lastValidHost) return true;
  if (!HOST_PATTERN.test(host)) return false;
  lastValidHost = host;
  return true;
}

const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * The response a socket of a `serve` server still owes, kept on the socket under this key: set
 * when a request arrives, cleared once the whole response is in the socket's write queue. A
 * parser error on a pipelined request then never writes a raw reply into the middle of, or ahead
 * of, another response. Clearing it promptly matters for speed too: a response kept until the
 * next request on its socket survives a young-generation GC with everything it references. A
 * property rather than a `WeakMap` entry: setting and clearing it costs a store each, where the
 * `WeakMap` hashed the socket three times per request.
 */
const OWED: unique symbol = Symbol('plant-store.owed-response');

/** A socket of a `serve` server, with the response it still owes. */
interface OwingSocket {
  [OWED]?: ServerResponse | undefined;
}

/**
 * Forgets `res` as owed once its every byte was handed to the socket (`end` called on an
 * assigned socket). A pipelined response still waiting for its turn has no socket yet and stays.
 */
function handedOver(res: ServerResponse): void {
  const socket = res.socket as OwingSocket | null;
  if (socket !== null && socket[OWED] === res) socket[OWED] = undefined;
}

interface ListenerConfig {
  readonly onError: (error: unknown) => void;
  readonly maxDrainBytes: number;
  readonly drainTimeout: number;
}

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
 * @throws {TypeError} When `handler` is not a function or an option is not a non-negative integer.
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

/**
 * Starts an HTTP server for a fetch handler, with limits that are safe on the open internet.
 *
 * The server answers through `toNodeListener`. Malformed HTTP gets a `400` Error body and a
 * request head over `maxHeaderSize` a `431` one (while the socket can be written); a client too
 * slow to send its headers (`headersTimeout`) or its request (`requestTimeout`) is disconnected.
 * Requests without a `Host` header reach the listener, which answers them with a `400` Error body.
 *
 * @param options The handler, the address and the limits; every limit has a safe default.
 * @returns A promise of the running server's handle; it rejects when the server cannot listen
 *   (the port taken, say).
 * @throws {TypeError} When an option is out of range (synchronously, before anything listens).
 * @example
 * ```ts
 * import { serve } from 'plant-store/node';
 *
 * const server = await serve({ fetch: () => Response.json({ ok: true }), port: 0 });
 * console.log(`listening on ${server.url}`);
 * process.once('SIGTERM', () => void server.close());
 * ```
 */
export function serve(options: ServeOptions): Promise<ServeHandle> {
  const port = count(options.port, 3000, 'port');
  if (port > 65535) throw new TypeError('port must be an integer in 0-65535');
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') {
    throw new TypeError('host must be a non-empty string');
  }
  const headersTimeout = count(options.headersTimeout, 10_000, 'headersTimeout');
  const requestTimeout = count(options.requestTimeout, 30_000, 'requestTimeout');
  if (requestTimeout > 0 && headersTimeout > requestTimeout) {
    throw new TypeError('headersTimeout must not exceed requestTimeout');
  }
  const keepAliveTimeout = count(options.keepAliveTimeout, 5000, 'keepAliveTimeout');
  const maxHeaderSize = count(options.maxHeaderSize, 16_384, 'maxHeaderSize');
  const connectionsCheckingInterval = count(
    options.connectionsCheckingInterval,
    1000,
    'connectionsCheckingInterval',
  );
  const shutdownTimeout = count(options.shutdownTimeout, 10_000, 'shutdownTimeout');
  const listener = toNodeListener(options.fetch, options);
  const onError = options.onError ?? defaultOnError;

  let closing = false;

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    (req.socket as OwingSocket)[OWED] = res;
    // Not `setHeader('connection', 'close')`: with headers already set, node's `writeHead`
    // drops repeated Set-Cookie values from the flat header list.
    if (closing) res.shouldKeepAlive = false;
    listener(req, res);
  };
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      maxHeaderSize,
      connectionsCheckingInterval,
      // Node would answer a missing Host with a bare 400; the listener answers with the Error body.
      requireHostHeader: false,
    },
    onRequest,
  );
  // Node would answer an Expect other than 100-continue with a bare 417 and no Error body. RFC
  // 9110 section 10.1.1 lets a server ignore an expectation it does not know: serve the request.
  server.on('checkExpectation', onRequest);
  server.keepAliveTimeout = keepAliveTimeout;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    rejectClient(error, socket, (socket as OwingSocket)[OWED]);
  });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      const sweep = setInterval(() => server.closeIdleConnections(), SHUTDOWN_SWEEP_INTERVAL);
      const force = setTimeout(() => server.closeAllConnections(), shutdownTimeout);
      sweep.unref();
      force.unref();
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closed;
  };

  return new Promise<ServeHandle>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (error) => report(onError, error));
      const bound = (server.address() as AddressInfo).port;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({ url: `http://${urlHost}:${bound}`, port: bound, server, close });
    });
  });
}

async function respond(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
): Promise<void> {
  const controller = new AbortController();
  const body: BodyState = { onData: undefined };
  // One listener for both ends of the exchange: the connection closed before the response was
  // finished (the client went away: abort), or after it with the request body still unread.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
    else if (!req.complete) drainRequest(req, body, config);
  });

  const request = toRequest(req, controller.signal, body);
  if (typeof request === 'string') {
    // A client that sends a request fetch cannot represent is not worth keeping.
    res.shouldKeepAlive = false;
    sendReply(res, errorReply('ERR_BAD_REQUEST', request));
    return;
  }

  let response: Response;
  try {
    response = await handler(request);
    if (!(response instanceof Response)) {
      throw new TypeError('the fetch handler did not return a Response');
    }
  } catch (error) {
    if (!controller.signal.aborted) report(config.onError, error);
    if (!res.destroyed) sendReply(res, errorReply('ERR_INTERNAL'));
    return;
  }
  await sendResponse(req, res, response, config, controller.signal);
}

/** The path of an origin-form request target (`/plants?x=1` → `/plants`), else `undefined`. */
function pathOf(target: string | undefined): string | undefined {
  if (target === undefined || target.charCodeAt(0) !== 47 /* '/' */) return undefined;
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * Answers a request a plant store handles on plain values: the same checks and replies as the
 * generic path (Host, then the store's contract), minus the `Request` and `Response` objects.
 */
function answerPlain(
  plain: PlainHandler,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
): void {
  const raw = req.rawHeaders;
  let host: string | undefined;
  let hosts = 0;
  let authorization: string | null = null;
  let contentType: string | null = null;
  let contentLength: string | null = null;
  let chunked = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // Hot path: switch on the length, then the usual spelling, so most headers cost no
    // lower-casing. Repeated headers are joined with ", ", as `Headers.get` does, so both paths
    // see the same values.
    switch (name.length) {
      case 4:
        if (name === 'Host' || name.toLowerCase() === 'host') {
          host = value;
          hosts++;
        }
        break;
      case 12:
        if (name === 'Content-Type' || name.toLowerCase() === 'content-type')
          contentType = joined(contentType, value);
        break;
      case 13:
        if (name === 'Authorization' || name.toLowerCase() === 'authorization')
          authorization = joined(authorization, value);
        break;
      case 14:
        if (name === 'Content-Length' || name.toLowerCase() === 'content-length')
          contentLength = joined(contentLength, value);
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') chunked = true;
        break;
    }
  }
  if (hosts !== 1 || !isValidHost(host)) {
    res.shouldKeepAlive = false;
    sendReply(res, errorReply('ERR_BAD_REQUEST', 'the Host header is missing or not valid'));
    return;
  }

  plain.handle(
    {
      method: req.method ?? 'GET',
      authorization,
      contentType,
      // Node's HTTP parser refuses a Content-Length that is not plain digits, or given twice.
      declaredLength: contentLength === null ? -1 : Number(contentLength),
      hasBody: chunked || contentLength !== null,
      readBody: (maxBytes, sink) => readRequestBody(req, maxBytes, sink),
      client: new ConnectionWatch(res),
    },
    (reply) => {
      try {
        if (!res.destroyed) {
          sendReply(res, reply);
          handedOver(res);
        }
        // A body the store did not read (a 401, say) is drained, so the connection serves on.
        if (!req.complete) drainRequest(req, { onData: undefined }, config);
      } catch (error) {
        lastResort(config, res, error);
      }
    },
  );
}

/** What is left when answering failed in a way nothing else caught: report, cut the connection. */
function lastResort(config: ListenerConfig, res: ServerResponse, error: unknown): void {
  report(config.onError, error);
  res.destroy();
}

/** The error a read fails with, and the reason a watch gives, once the client went away. */
function clientGone(): DOMException {
  return new DOMException('the client went away', 'AbortError');
}

function joined(previous: string | null, value: string): string {
  return previous === null ? value : `${previous}, ${value}`;
}

/**
 * A `ClientWatch` on a response: the client is gone once the connection closed before the
 * response was sent. The response's `close` event is listened to only while someone (a
 * collaborator that read its signal) asks to hear about it.
 */
class ConnectionWatch implements ClientWatch {
  #reason: unknown;
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get aborted(): boolean {
    return this.#res.destroyed;
  }

  get reason(): unknown {
    this.#reason ??= clientGone();
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#res.once('close', listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#res.off('close', listener);
  }
}

/**
 * Reads a request body whole into `sink`, counting bytes and stopping (pausing the socket) past
 * `maxBytes`; the rest is drained, capped, after the response. The body is handed over inside
 * the `end` event, so a store whose collaborators answer synchronously answers right there.
 */
function readRequestBody(req: IncomingMessage, maxBytes: number, sink: BodySink): void {
  // A host's body parser (express.json(), say) read the body first; a gone client sends no more
  // events.
  if (wasRead(req)) {
    sink.fail(bodyAlreadyRead());
    return;
  }
  if (req.destroyed) {
    sink.fail(clientGone());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Set once the sink has its answer; later events are ignored rather than unsubscribed from,
  // which costs less, and the request is done with soon after anyway.
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      settled = true;
      req.pause();
      sink.take('ERR_BODY_TOO_LARGE');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    if (size === 0) sink.take('ERR_BODY_REQUIRED');
    // Most bodies arrive as one chunk: hand it over without a copy.
    else sink.take(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  });
  // With an 'error' listener node reports a lost client as an error too; 'close' covers both.
  req.on('close', () => {
    if (settled || req.complete) return;
    settled = true;
    sink.fail(clientGone());
  });
}

/** Whether something other than this listener has read from the request body already. */
function wasRead(req: IncomingMessage): boolean {
  return req.readableEnded || req.readableDidRead;
}

interface BodyState {
  /** The `'data'` listener feeding the body stream, once the handler started reading. */
  onData: ((chunk: Buffer) => void) | undefined;
}

/** Builds the native `Request`, or returns why the request cannot be one. */
function toRequest(req: IncomingMessage, signal: AbortSignal, body: BodyState): Request | string {
  const raw = req.rawHeaders;
  const headers = new Headers();
  let host: string | undefined;
  let hosts = 0;
  let announcesBody = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // Skip HTTP/2 pseudo-headers (`:authority`, ...): hot path, a single char compare.
    if (name.charCodeAt(0) === 58) continue;
    // Length checks first, so most headers cost no lower-casing.
    if (name.length === 4 && name.toLowerCase() === 'host') {
      host = value;
      hosts++;
    } else if (
      (name.length === 17 && name.toLowerCase() === 'transfer-encoding') ||
      (name.length === 14 && name.toLowerCase() === 'content-length' && value !== '0')
    ) {
      announcesBody = true;
    }
    headers.append(name, value);
  }
  if (hosts !== 1 || !isValidHost(host)) {
    return 'the Host header is missing or not valid';
  }

  const target = req.url ?? '';
  let url: string;
  if (target.charCodeAt(0) === 47 /* '/' */) {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    url = (encrypted ? 'https://' : 'http://') + host + target;
  } else if (ABSOLUTE_FORM.test(target)) {
    url = target;
  } else {
    return 'the request target is not supported';
  }

  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  // Only build a stream when there is a body to read: GET and HEAD never have one for fetch.
  if (announcesBody && method !== 'GET' && method !== 'HEAD') {
    init.body = toBodyStream(req, body);
    // Required by fetch for a stream body: https://fetch.spec.whatwg.org/#dom-requestinit-duplex
    init.duplex = 'half';
  }
  try {
    return new Request(url, init);
  } catch {
    // A URL or method fetch cannot represent (TRACE, CONNECT, a bad port).
    return 'malformed request';
  }
}

/**
 * The request body as a byte stream. `highWaterMark: 0` keeps it lazy: nothing is read from
 * the socket until the handler reads, so a rejected request costs no body reading at all.
 */
function toBodyStream(req: IncomingMessage, body: BodyState): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (body.onData !== undefined) {
          req.resume();
          return;
        }
        if (wasRead(req)) {
          // A host (a body parser under Express) consumed the body before us: an empty body
          // would pass for one the client never sent.
          settled = true;
          controller.error(bodyAlreadyRead());
          return;
        }
        if (req.destroyed) {
          // The client left before the handler started reading: no event will come any more.
          settled = true;
          controller.error(clientGone());
          return;
        }
        const finish = (error?: unknown): void => {
          if (settled) return;
          settled = true;
          if (error === undefined) controller.close();
          else controller.error(error);
        };
        body.onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          // Backpressure: a chunk is queued that nobody asked for yet, so stop reading the
          // socket until the next pull.
          if ((controller.desiredSize ?? 0) < 0) req.pause();
        };
        req.on('data', body.onData);
        req.once('end', () => finish());
        req.once('error', (error) => finish(error));
        req.once('close', () => {
          if (!req.complete) finish(clientGone());
        });
      },
      cancel() {
        // The handler is done with the body; the rest is drained (capped) after the response.
        if (body.onData !== undefined) req.off('data', body.onData);
        body.onData = undefined;
        settled = true;
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads and throws away what is left of a request body, so the connection can serve its next
 * request, within the byte and time caps; past either the connection is closed.
 */
function drainRequest(req: IncomingMessage, body: BodyState, config: ListenerConfig): void {
  if (req.destroyed) return;
  if (body.onData !== undefined) req.off('data', body.onData);
  body.onData = undefined;
  let bytes = 0;
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', stop);
    req.off('close', stop);
  };
  const cut = (): void => {
    stop();
    req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    bytes += chunk.byteLength;
    if (bytes > config.maxDrainBytes) cut();
  };
  const timer = setTimeout(cut, config.drainTimeout);
  timer.unref();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

async function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  config: ListenerConfig,
  signal: AbortSignal,
): Promise<void> {
  const body = response.body;
  if (res.destroyed || res.headersSent) {
    // The client left while the handler worked, or someone else answered: never a second response.
    body?.cancel().catch(noop);
    if (!res.destroyed) res.destroy();
    return;
  }
  // Iterating `Headers` yields each Set-Cookie on its own; the flat list keeps them separate.
  const headers: string[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  try {
    if (response.statusText === '') res.writeHead(response.status, headers);
    else res.writeHead(response.status, response.statusText, headers);
  } catch (error) {
    // A header node refuses: nothing was sent yet, so this is still a clean 500.
    report(config.onError, error);
    body?.cancel().catch(noop);
    sendReply(res, errorReply('ERR_INTERNAL'));
    return;
  }
  if (body === null || req.method === 'HEAD') {
    body?.cancel().catch(noop);
    res.end();
    return;
  }

  const reader = body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(noop);
  };
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    // The headers are out: the only honest signal left is to cut the connection.
    if (!signal.aborted && !res.destroyed) report(config.onError, error);
    res.destroy();
    reader.cancel().catch(noop);
  } finally {
    res.off('close', cancel);
  }
}

/** Resolves on `'drain'`, or on `'close'` so a vanished client never leaves it hanging. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes an Error body reply, unless a response was already started (then: cut). */
function sendReply(res: ServerResponse, reply: ErrorReply): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A flat name/value list goes to node as it is, where an object is walked key by key. Most
  // replies (every 200) carry just the JSON content type.
  const length = String(Buffer.byteLength(reply.body));
  let head: string[];
  if (reply.headers === JSON_HEADERS) {
    head = ['content-type', JSON_HEADERS['content-type'] as string, 'content-length', length];
  } else {
    head = [];
    for (const name in reply.headers) head.push(name, reply.headers[name] as string);
    head.push('content-length', length);
  }
  res.writeHead(reply.status, head);
  res.end(reply.body);
}

/**
 * Answers a request the HTTP parser rejected before any listener saw it, with the Error body
 * while the socket can be written: `431` for a head over `maxHeaderSize`, `400` otherwise. A
 * timed-out (slowloris) or reset client, or a socket with a response in flight, is cut.
 */
function rejectClient(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  response: ServerResponse | undefined,
): void {
  if (rejected.has(socket)) return;
  const code = error.code;
  if (
    code === 'ECONNRESET' ||
    code === 'ERR_HTTP_REQUEST_TIMEOUT' ||
    !socket.writable ||
    (response !== undefined && !response.writableFinished)
  ) {
    socket.destroy();
    return;
  }
  rejected.add(socket);
  const reply = errorReply(
    code === 'HPE_HEADER_OVERFLOW' ? 'ERR_HEADERS_TOO_LARGE' : 'ERR_BAD_REQUEST',
  );
  let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\n`;
  for (const name in reply.headers) head += `${name}: ${reply.headers[name]}\r\n`;
  head += `content-length: ${Buffer.byteLength(reply.body)}\r\nconnection: close\r\n\r\n`;
  // End (not destroy) and linger: closing a socket with unread input sends a reset, which can
  // make the client lose the reply. Later parser errors on this socket are ignored above.
  socket.end(head + reply.body);
  setTimeout(() => socket.destroy(), REJECTED_SOCKET_LINGER).unref();
}

const rejected = new WeakSet<object>();

function count(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative integer`);
  }
  return value;
}

function report(onError: (error: unknown) => void, error: unknown): void {
  try {
    // An async onError type-checks too: its rejection must not become an unhandled one.
    const pending: unknown = onError(error);
    if (pending instanceof Promise) pending.catch(noop);
  } catch {
    // onError must not throw; if it does, there is nowhere left to report to.
  }
}

function defaultOnError(error: unknown): void {
  console.error(error);
}

function noop(): void {}
