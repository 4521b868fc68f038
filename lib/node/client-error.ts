/**
 * `serve`'s answer to bytes its HTTP parser rejects: each executed request still gets its response
 * first (RFC 9112 section 9.6), a framing error one Error body, then the connection closes.
 * @module
 */

import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ErrorReply, errorReply } from '../errors.ts';
import { connectionOf, takeOver } from './connection.ts';
import { sendReply } from './send.ts';

/** How long a socket stays open after its last answer while the client reads it. */
const LINGER_MS = 1000;

/** Sockets already being closed after a parser error: later errors on them are ignored. */
const rejected = new WeakSet<object>();

/** Answers a parser error (`HPE_*`), a timeout or a reset; `prepareRaw` adds a request id. */
export function rejectClient(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  prepareRaw: ((reply: ErrorReply) => ErrorReply) | undefined,
): void {
  if (rejected.has(socket)) return;
  const code = error.code;
  if (code === 'ECONNRESET' || code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  rejected.add(socket);
  const reply = errorReply(
    code === 'HPE_HEADER_OVERFLOW' ? 'ERR_HEADERS_TOO_LARGE' : 'ERR_BAD_REQUEST',
  );
  const connection = connectionOf(socket);
  const owed = connection?.owed;
  const incoming = connection?.incoming;
  const closing = connection?.closing === true;
  if (incoming !== undefined && !incoming.complete) {
    // The error is in this request's own body: it gets one answer; its reader ends with the socket.
    if (owed !== undefined && !owed.headersSent) {
      takeOver(owed);
      owed.shouldKeepAlive = false;
      sendReply(owed, reply);
    }
    afterResponse(owed, () => linger(socket, () => incoming.destroy()));
    return;
  }
  afterResponse(owed, () => {
    // Bytes after a request that said Connection: close are ignored, never executed.
    if (closing || (owed !== undefined && !owed.shouldKeepAlive)) linger(socket);
    else writeRawReply(socket, prepareRaw === undefined ? reply : prepareRaw(reply));
  });
}

/** Writes a reply to a socket that has no response object (a rejected request, a `CONNECT`). */
export function writeRawReply(socket: Duplex, reply: ErrorReply): void {
  let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\n`;
  for (const name in reply.headers) head += `${name}: ${reply.headers[name]}\r\n`;
  head += `content-length: ${Buffer.byteLength(reply.body)}\r\nconnection: close\r\n\r\n`;
  socket.write(head + reply.body);
  linger(socket);
}

function afterResponse(res: ServerResponse | undefined, then: () => void): void {
  if (res === undefined || res.writableFinished || res.destroyed) {
    then();
    return;
  }
  let done = false;
  const once = (): void => {
    if (!done) {
      done = true;
      then();
    }
  };
  res.once('finish', once);
  res.once('close', once);
}

/** Ends before it destroys: closing with unread input sends a reset that can lose the answer. */
function linger(socket: Duplex, andThen?: () => void): void {
  socket.end();
  setTimeout(() => {
    socket.destroy();
    andThen?.();
  }, LINGER_MS).unref();
}
