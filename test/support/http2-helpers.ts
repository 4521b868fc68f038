/**
 * Helpers for tests over real HTTP/2: a `node:http2` server (h2c, or h2 over TLS) on a free
 * loopback port, one request on a client session with its answer collected, `fetch`-like
 * functions over a session and over HTTP/1.1 (to compare with), and a raw h2c client that
 * writes frames by hand, for requests node's client will not send (no `:authority`, a reset in
 * the middle of a body).
 *
 * @module
 */

import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect as connectHttp2,
  createSecureServer,
  createServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as connectTcp, type Socket } from 'node:net';
import { withDeadline } from './node-helpers.ts';

/** A listener for a `node:http2` server (and, with `allowHTTP1`, for HTTP/1.1 requests too). */
export type Http2Listener = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

export interface Http2TestServer {
  readonly server: Http2Server | Http2SecureServer;
  readonly port: number;
  /** `http://127.0.0.1:<port>` for h2c, `https://…` over TLS. */
  readonly url: string;
  /** A client session to the server, closed with the server. */
  connect(): Promise<ClientHttp2Session>;
  close(): Promise<void>;
}

/**
 * `http2.createServer(listener)` (h2c) or, given `tls`, `http2.createSecureServer` on a free
 * loopback port. Every session the server or `connect` opened is destroyed on `close`.
 */
export async function listenHttp2(
  listener: Http2Listener,
  tls?: { key: Buffer; cert: Buffer; allowHTTP1?: boolean },
): Promise<Http2TestServer> {
  const server = tls === undefined ? createServer(listener) : createSecureServer(tls, listener);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  const sessions = new Set<ClientHttp2Session>();
  return {
    server,
    port,
    url,
    async connect() {
      const session = connectHttp2(url, tls === undefined ? {} : { ca: tls.cert });
      sessions.add(session);
      session.on('error', () => {});
      await withDeadline(
        new Promise<void>((resolve, reject) => {
          session.once('connect', () => resolve());
          session.once('error', reject);
        }),
        `an HTTP/2 session to ${url}`,
      );
      return session;
    },
    close() {
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP/2 answer: the status, the headers without `:status`, the body as text. */
export interface Http2Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The body as it came, before any decoding. */
  readonly bytes: Buffer;
  /** The RST_STREAM code the stream closed with (`0`: NO_ERROR, a normal end). */
  readonly rstCode: number;
}

/**
 * Sends one request on `session` and collects its answer: `:method` and `:path` from the
 * arguments (no `:path` when it is `undefined`), the body (none: END_STREAM on the HEADERS
 * frame) written in one piece.
 */
export function http2Request(
  session: ClientHttp2Session,
  method: string,
  path: string | undefined,
  headers: OutgoingHttpHeaders = {},
  body?: string | Uint8Array,
): Promise<Http2Answer> {
  // A CONNECT request has no :path (RFC 9113 section 8.5).
  const target = path === undefined ? {} : { ':path': path };
  const stream = session.request(
    { ':method': method, ...target, ...headers },
    { endStream: body === undefined },
  );
  if (body !== undefined) stream.end(body);
  return withDeadline(answerOf(stream), `HTTP/2 ${method} ${path}`);
}

/** The answer on a client stream, once it closed; rejects when it fails without one. */
export function answerOf(stream: ClientHttp2Stream): Promise<Http2Answer> {
  return new Promise((resolve, reject) => {
    let head: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => {
      head = headers;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => {});
    stream.on('close', () => {
      if (head === undefined) {
        reject(new Error(`the stream closed without a response (code ${stream.rstCode})`));
        return;
      }
      const { ':status': status, ...rest } = head;
      const bytes = Buffer.concat(chunks);
      resolve({
        status: Number(status),
        headers: rest,
        body: bytes.toString('utf8'),
        bytes,
        rstCode: stream.rstCode ?? 0,
      });
    });
  });
}

/** The statuses a `Response` must have no body for. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` over one HTTP/2 session, enough for the contract's cases and the comparisons: the
 * method, the headers (`content-length` set for a body, as `fetch` sets it, unless told not to;
 * `:authority` the session's unless given) and a buffered body go out; the answer comes back as
 * a `Response`.
 */
export function fetchOver(
  session: ClientHttp2Session,
  options: { contentLength?: boolean; authority?: string } = {},
): (
  url: string,
  init: { method: string; headers: HeadersInit; body: string | ArrayBuffer | null },
) => Promise<Response> {
  return async (url, { method, headers, body }) => {
    const { pathname, search } = new URL(url);
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of new Headers(headers)) out[name] = value;
    if (options.authority !== undefined) out[':authority'] = options.authority;
    const bytes =
      body === null
        ? undefined
        : typeof body === 'string'
          ? new TextEncoder().encode(body)
          : new Uint8Array(body);
    if (bytes !== undefined && options.contentLength !== false) {
      out['content-length'] = String(bytes.byteLength);
    }
    const answer = await http2Request(session, method, pathname + search, out, bytes);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : [value ?? '']) {
        responseHeaders.append(name, one);
      }
    }
    const nullBody = NULL_BODY.has(answer.status) || method === 'HEAD';
    return new Response(nullBody ? null : new Uint8Array(answer.bytes), {
      status: answer.status,
      headers: responseHeaders,
    });
  };
}

/**
 * An HTTP/1.1 request (over TLS for an https URL, trusting `ca`), its answer as a `Response`:
 * the client an `allowHTTP1` server also serves, and the reference HTTP/2 answers are held to.
 */
export function http11Fetch(
  url: string,
  init: { method: string; headers: HeadersInit; body: string | null },
  ca?: Buffer,
): Promise<Response> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return withDeadline(
    new Promise((resolve, reject) => {
      const req = send(url, {
        method: init.method,
        headers: Object.fromEntries(new Headers(init.headers)),
        ca,
      });
      req.on('error', reject);
      req.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? '']) {
              headers.append(name, one);
            }
          }
          const status = response.statusCode ?? 0;
          const empty = init.method === 'HEAD' || status === 204;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.end(init.body ?? undefined);
    }),
    `HTTP/1.1 ${init.method} ${url}`,
  );
}

/** HTTP/2 frame types (RFC 9113 section 6). */
export const FRAME = {
  DATA: 0,
  HEADERS: 1,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
} as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;

/** One frame the server sent. */
export interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly stream: number;
  readonly payload: Buffer;
}

/**
 * A raw h2c client (prior knowledge): it writes the frames it is told to, with header blocks as
 * HPACK literals without indexing (RFC 7541 section 6.2.2), and keeps every frame the server
 * sends. It acknowledges the server's SETTINGS and nothing else.
 */
export interface RawHttp2 {
  /** HEADERS (END_HEADERS, and END_STREAM unless `body` follows) with exactly these fields. */
  headers(stream: number, fields: readonly (readonly [string, string])[], endStream: boolean): void;
  data(stream: number, bytes: Uint8Array | string, endStream: boolean): void;
  reset(stream: number, code: number): void;
  /** The frames received so far on `stream`. */
  frames(stream: number): Frame[];
  /** Resolves with the frames of `stream` once it ended (END_STREAM or RST_STREAM). */
  ended(stream: number, what: string): Promise<Frame[]>;
  /** The text of the DATA frames received on `stream`. */
  body(stream: number): string;
  close(): void;
}

export async function rawHttp2(port: number): Promise<RawHttp2> {
  const socket = connectTcp(port, '127.0.0.1');
  socket.on('error', () => {});
  await withDeadline(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    'a raw h2c connection',
  );
  const received: Frame[] = [];
  const waiters = new Set<() => void>();
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 9) {
      const length = buffer.readUIntBE(0, 3);
      if (buffer.length < 9 + length) break;
      const frame = {
        type: buffer[3] as number,
        flags: buffer[4] as number,
        stream: buffer.readUInt32BE(5) & 0x7fffffff,
        payload: buffer.subarray(9, 9 + length),
      };
      buffer = buffer.subarray(9 + length);
      if (frame.type === FRAME.SETTINGS && (frame.flags & ACK) === 0) {
        socket.write(frameBytes(FRAME.SETTINGS, ACK, 0, Buffer.alloc(0)));
      }
      received.push(frame);
    }
    for (const waiter of waiters) waiter();
  });
  socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  socket.write(frameBytes(FRAME.SETTINGS, 0, 0, Buffer.alloc(0)));

  const frames = (stream: number) => received.filter((frame) => frame.stream === stream);
  const isEnd = (frame: Frame) =>
    frame.type === FRAME.RST_STREAM ||
    ((frame.type === FRAME.DATA || frame.type === FRAME.HEADERS) &&
      (frame.flags & END_STREAM) !== 0);
  return {
    headers(stream, fields, endStream) {
      const block = Buffer.concat(fields.map(([name, value]) => literal(name, value)));
      const flags = END_HEADERS | (endStream ? END_STREAM : 0);
      socket.write(frameBytes(FRAME.HEADERS, flags, stream, block));
    },
    data(stream, bytes, endStream) {
      socket.write(frameBytes(FRAME.DATA, endStream ? END_STREAM : 0, stream, Buffer.from(bytes)));
    },
    reset(stream, code) {
      const payload = Buffer.alloc(4);
      payload.writeUInt32BE(code);
      socket.write(frameBytes(FRAME.RST_STREAM, 0, stream, payload));
    },
    frames,
    ended(stream, what) {
      return withDeadline(
        new Promise<Frame[]>((resolve) => {
          const check = (): void => {
            if (frames(stream).some(isEnd)) {
              waiters.delete(check);
              resolve(frames(stream));
            }
          };
          waiters.add(check);
          check();
        }),
        what,
      );
    },
    body(stream) {
      const data = frames(stream).filter((frame) => frame.type === FRAME.DATA);
      return Buffer.concat(data.map((frame) => frame.payload)).toString('utf8');
    },
    close() {
      socket.destroy();
    },
  };
}

function frameBytes(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** A header field as an HPACK literal without indexing, with a new name, no Huffman coding. */
function literal(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.of(0), hpackString(name), hpackString(value)]);
}

function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(bytes.length), bytes]);
}

/** An HPACK integer with a 7-bit prefix (RFC 7541 section 5.1), the Huffman bit clear. */
function hpackInteger(value: number): Buffer {
  if (value < 127) return Buffer.of(value);
  const bytes = [127];
  let rest = value - 127;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
