/**
 * What HTTP/2 changes for writing and bodies: no connection-specific response fields, and an
 * unneeded body stopped by closing its stream only (its authority is read in `node-request.ts`).
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerResponse, ServerHttp2Stream } from 'node:http2';

export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
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
