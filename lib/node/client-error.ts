/**
 * A `serve` server's answer to bytes its HTTP parser rejects, such that every request that was
 * executed still gets its final response before the connection closes (RFC 9112 section 9.6),
 * and a framing error gets exactly one Error body, then close:
 * - the error is inside a request's own body (a malformed chunk or trailer, a `Transfer-Encoding`
 *   node refuses mid-stream): that request is answered `400` if it was not answered yet, and the
 *   connection closes; it never gets a second response;
 * - the error is in bytes after a request: that request's response goes out first; then, unless
 *   it said `Connection: close` (after which later bytes are ignored, never executed), the
 *   rejected bytes get their `400` (`431` for a head over `maxHeaderSize`), and the connection
 *   closes.
 * A timed-out (slowloris) or reset client is cut.
 *
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

/**
 * Answers a parser error on `socket`, as the module comment says.
 *
 * @param error The parser's error (`HPE_*`), a timeout or a reset.
 * @param socket The connection.
 * @param prepareRaw What an answer written straight to the socket gets first (a request id).
 */
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
  const { owed, incoming, closing } = connectionOf(socket);
  if (incoming !== undefined && !incoming.complete) {
    // The error is inside this request: it gets one answer, its own. Its body will never end,
    // so its reader is ended with the connection (a handler still waiting for it ends quietly:
    // the request was answered here).
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

/**
 * Writes an Error body reply straight to a socket that has no response object (a request the
 * parser rejected, a `CONNECT`), with `Connection: close`, then closes it.
 */
export function writeRawReply(socket: Duplex, reply: ErrorReply): void {
  let head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\n`;
  for (const name in reply.headers) head += `${name}: ${reply.headers[name]}\r\n`;
  head += `content-length: ${Buffer.byteLength(reply.body)}\r\nconnection: close\r\n\r\n`;
  socket.write(head + reply.body);
  linger(socket);
}

/** Runs `then` once `res` is finished (or gone), at once when there is none. */
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

/**
 * Ends a socket (not destroy) and lets it linger: closing a socket with unread input sends a
 * reset, which can make the client lose the answer it was sent.
 */
function linger(socket: Duplex, andThen?: () => void): void {
  socket.end();
  setTimeout(() => {
    socket.destroy();
    andThen?.();
  }, LINGER_MS).unref();
}
