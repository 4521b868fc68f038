/**
 * What HTTP/2 changes for the adapter: the authority from `:authority` (RFC 9113 section 8.3.1),
 * no connection-specific response fields, and an unneeded body stopped by closing its stream only.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Stream } from 'node:http2';
import { type ErrorReply, errorReply } from '../errors.ts';
import { isValidHost } from './host.ts';

export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

export interface Http2Head {
  /** The request's authority, `undefined` when `problem` says why there is none. */
  readonly host: string | undefined;
  /** False when the HEADERS frame ended the stream: no body follows, whatever the headers say. */
  readonly hasBody: boolean;
  /** A `400` for a missing, malformed or contradicted authority, else `undefined`. */
  readonly problem: ErrorReply | undefined;
}

/**
 * Reads an HTTP/2 request's authority and whether a body follows. More than one Host line, or one
 * that names another authority than `:authority`, makes the request malformed (section 8.3.1).
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

/** Whether two authorities match after RFC 3986 section 6.2.3's scheme-based normalisation. */
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

/** Fields HTTP/2 forbids in a response (RFC 9113 section 8.2.2), which node throws on. */
const CONNECTION_SPECIFIC: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
]);

export function http2Fields(headers: Headers): string[] {
  const fields: string[] = [];
  for (const [name, value] of headers) {
    if (!CONNECTION_SPECIFIC.has(name)) fields.push(name, value);
  }
  return fields;
}

/**
 * Stops a body the answer does not need: once the response went out whole, or after `timeout` ms,
 * the stream is reset with NO_ERROR (RFC 9113 section 8.1), sparing the connection's other streams.
 */
export function closeStreamAfterResponse(res: ServerResponse, timeout: number): void {
  const stream = (res as unknown as Http2ServerResponse).stream;
  if (!stream.endAfterHeaders) {
    stream.once('finish', () => closeOnceSent(stream, Date.now() + timeout, 1));
  }
}

/**
 * Node sends END_STREAM only once the socket took the last write, and shows it only in the stream's
 * state: a reset sent before would overtake the response, so the state is polled until then.
 */
function closeOnceSent(stream: ServerHttp2Stream, deadline: number, wait: number): void {
  if (stream.closed) return;
  if (stream.state.localClose === 1 || Date.now() >= deadline) {
    stream.close();
    return;
  }
  setTimeout(closeOnceSent, wait, stream, deadline, wait * 2).unref();
}

/** Whether a response's connection, or its HTTP/2 stream, is destroyed. */
export function isResponseGone(res: ServerResponse): boolean {
  return (
    (res as { destroyed?: boolean }).destroyed ??
    (res as unknown as Http2ServerResponse).stream.destroyed
  );
}
