/**
 * What HTTP/2 changes for the adapter, as `node:http2`'s compatibility API hands a request over:
 * the authority comes from `:authority` (RFC 9113 section 8.3.1), a body is whatever follows a
 * HEADERS frame that did not end the stream, a response carries no connection-specific field,
 * and a body the answer did not need is refused by closing the stream, not the connection. The
 * listener decides once per request, by `req.httpVersionMajor`, whether any of this applies.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Stream } from 'node:http2';
import { type ErrorReply, errorReply } from '../errors.ts';
import { isValidHost } from './host.ts';

/** Whether a request came over HTTP/2, as an `Http2ServerRequest`. */
export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/** What an HTTP/2 request's head says in place of HTTP/1.1's Host line and framing headers. */
export interface Http2Head {
  /** The request's authority, `undefined` when `problem` says why there is none. */
  readonly host: string | undefined;
  /** False when the HEADERS frame ended the stream: no body follows, whatever the headers say. */
  readonly hasBody: boolean;
  /** A `400` for a missing, malformed or contradicted authority, else `undefined`. */
  readonly problem: ErrorReply | undefined;
}

/**
 * Reads an HTTP/2 request's head: its authority, `:authority` or the one Host line a client sent
 * without it, and whether a body follows. A Host that names another authority than
 * `:authority` makes the request malformed (RFC 9113 section 8.3.1), as does more than one Host
 * line, as on HTTP/1.1.
 *
 * @param req The request, an `Http2ServerRequest`.
 * @param host The one Host line, `undefined` when there is none or more than one.
 * @param hosts How many Host lines came.
 */
export function readHttp2Head(
  req: IncomingMessage,
  host: string | undefined,
  hosts: number,
): Http2Head {
  const { stream, headers, scheme } = req as unknown as Http2ServerRequest;
  const hasBody = !stream.endAfterHeaders;
  const authority = headers[':authority'];
  if (hosts > 1 || !isValidHost(authority ?? host)) {
    return { host: undefined, hasBody, problem: errorReply('ERR_BAD_REQUEST', NO_AUTHORITY) };
  }
  if (authority !== undefined && host !== undefined && !sameAuthority(authority, host, scheme)) {
    return { host: undefined, hasBody, problem: errorReply('ERR_BAD_REQUEST', TWO_AUTHORITIES) };
  }
  return { host: authority ?? host, hasBody, problem: undefined };
}

const NO_AUTHORITY = 'the :authority (or Host) is missing or not valid';
const TWO_AUTHORITIES = 'the Host header names another authority than :authority';

/**
 * Whether two authorities name the same host and port, after the scheme-based normalisation
 * RFC 9113 asks for (RFC 3986 section 6.2.3): the host's case, an empty port and the scheme's
 * default port do not count.
 */
function sameAuthority(a: string, b: string, scheme: string): boolean {
  return normalised(a, scheme) === normalised(b, scheme);
}

function normalised(authority: string, scheme: string): string {
  let value = authority.toLowerCase();
  if (value.endsWith(':')) value = value.slice(0, -1);
  const defaultPort = scheme === 'https' ? ':443' : scheme === 'http' ? ':80' : undefined;
  if (defaultPort !== undefined && value.endsWith(defaultPort)) {
    value = value.slice(0, -defaultPort.length);
  }
  return value;
}

/**
 * The fields HTTP/2 forbids in a response (RFC 9113 section 8.2.2), which node refuses to send:
 * a handler's `Response` may carry them for HTTP/1.1, so they are dropped here, as an
 * intermediary drops them.
 */
const CONNECTION_SPECIFIC: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
]);

/** A handler's response headers as a flat name/value list an HTTP/2 response can carry. */
export function http2Fields(headers: Headers): string[] {
  const fields: string[] = [];
  for (const [name, value] of headers) {
    if (!CONNECTION_SPECIFIC.has(name)) fields.push(name, value);
  }
  return fields;
}

/**
 * Asks the client to stop sending a body the answer does not need: once the response went out
 * whole, END_STREAM included, the stream is reset with NO_ERROR (RFC 9113 section 8.1), which
 * leaves the connection's other streams alone. A client that does not take the response within
 * `timeout` ms has its stream reset all the same. A stream the HEADERS frame ended is left to
 * close itself.
 */
export function closeStreamAfterResponse(res: ServerResponse, timeout: number): void {
  const stream = (res as unknown as Http2ServerResponse).stream;
  if (!stream.endAfterHeaders) {
    stream.once('finish', () => closeOnceSent(stream, Date.now() + timeout, 1));
  }
}

/**
 * Resets `stream` once its END_STREAM was sent. Node says so only in the stream's state, and
 * sends it after the socket took the response's last write: a reset submitted before would
 * overtake it, so the state is looked at again, less and less often, until then.
 */
function closeOnceSent(stream: ServerHttp2Stream, deadline: number, wait: number): void {
  if (stream.closed) return;
  if (stream.state.localClose === 1 || Date.now() >= deadline) {
    stream.close();
    return;
  }
  setTimeout(closeOnceSent, wait, stream, deadline, wait * 2).unref();
}

/**
 * Whether a response can no longer reach the client: its connection was destroyed or, on
 * HTTP/2, its stream (an `Http2ServerResponse` has no `destroyed` of its own).
 */
export function isResponseGone(res: ServerResponse): boolean {
  return (
    (res as { destroyed?: boolean }).destroyed ??
    (res as unknown as Http2ServerResponse).stream.destroyed
  );
}
