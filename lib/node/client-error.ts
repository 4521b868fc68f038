/**
 * A `serve` server's answer to requests its HTTP parser rejects before any listener sees them:
 * the Error body (`400`, or `431` for a head over `maxHeaderSize`) while the socket can be
 * written, then close.
 *
 * @module
 */

import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorReply } from '../errors.ts';

/** How long a socket the parser rejected may stay open while the client reads the error. */
const REJECTED_SOCKET_LINGER = 1000;

/**
 * Answers a request the HTTP parser rejected before any listener saw it, with the Error body
 * while the socket can be written: `431` for a head over `maxHeaderSize`, `400` otherwise. A
 * timed-out (slowloris) or reset client, or a socket with a response in flight, is cut.
 */
export function rejectClient(
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
