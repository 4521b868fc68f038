/**
 * `serve`'s connection cap, a cap on abuse rather than on service: at the cap the connection
 * idle the longest is closed to make room for a new one, as nginx reclaims idle keep-alive
 * connections, and a new connection is refused only while every open one is busy. Busy means a
 * request is being read (a byte of it received) or answered, or a response is still being
 * written; a connection that has not finished its first request is busy too (`headersTimeout`
 * bounds it).
 *
 * Idle connections are kept in the order they became idle, so finding the one idle the longest
 * costs the same whatever the number of connections. While none is idle, node refuses new ones
 * itself (`server.maxConnections` and its `'drop'` event), before a socket is made.
 *
 * @module
 */

import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { allAnswered, watchIdle } from './connection.ts';
import { count } from './listener-config.ts';
import { openFileLimit } from './open-file-limit.ts';

/**
 * The cap when none is given. Each open connection holds a file descriptor and memory, and a
 * slow client may hold one until `headersTimeout`: a cap keeps a flood of connections from
 * exhausting either, while leaving room for far more clients than a load balancer's pool holds.
 */
const DEFAULT_MAX_CONNECTIONS = 4096;

/**
 * Descriptors left for all but client connections: the listening sockets, a database pool,
 * stdio and log files, and node's own.
 */
const RESERVED_DESCRIPTORS = 128;

/**
 * The cap in effect: `maxConnections` as given (or its default), but never more connections than
 * the open-file limit leaves room for, since past it accepting fails and the database pool and
 * log files starve with the clients.
 *
 * @throws {TypeError} When `maxConnections` is not a positive integer.
 */
export function maxConnectionsFor(
  maxConnections: number | undefined,
  limit = openFileLimit(),
): number {
  const wanted = count(maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections', 1);
  if (limit === undefined) return wanted;
  // Under a very low limit, half of it rather than nothing.
  return Math.min(wanted, Math.max(limit - RESERVED_DESCRIPTORS, Math.floor(limit / 2), 1));
}

/**
 * Caps the open connections of `server` at `max`. `onRefused` is called for each connection
 * closed unanswered because every open one was busy; it must not throw.
 */
export function capConnections(server: Server, max: number, onRefused: () => void): void {
  // Each idle connection with the bytes it had received then: any byte more begins a request.
  const idle = new Map<Socket, number>();
  let open = 0;
  // Node refuses a connection past `maxConnections` before making a socket of it, far cheaper
  // under a flood than refusing here: it lets one more in per idle connection, to replace it.
  const leaveRoom = (): void => {
    server.maxConnections = max + idle.size;
  };
  leaveRoom();
  server.on('drop', () => onRefused());

  /** Joins `socket` to the idle ones once `res` and its request are over and nothing follows. */
  const settled = (res: ServerResponse): void => {
    const socket = res.req.socket;
    if (!res.shouldKeepAlive || socket.destroyed) return;
    if (!res.writableFinished) {
      // Still being written, or a pipelined response waiting for its turn.
      res.once('finish', () => settled(res));
    } else if (!res.req.complete) {
      // Its body is drained after the response, or node has yet to end a bodyless request.
      res.req.once('end', () => settled(res));
    } else if (isIdle(socket)) {
      // Deleted first so that the order stays the order in which they became idle.
      idle.delete(socket);
      idle.set(socket, socket.bytesRead);
      leaveRoom();
    }
  };

  /** Closes the connection idle the longest; whether there was one. */
  const reclaim = (): boolean => {
    for (const [socket, received] of idle) {
      idle.delete(socket);
      // One that became busy again rejoins when its response is over.
      if (isIdle(socket) && socket.bytesRead === received) {
        socket.destroy();
        leaveRoom();
        return true;
      }
    }
    leaveRoom();
    return false;
  };

  function closed(this: Socket): void {
    open--;
    if (idle.delete(this)) leaveRoom();
  }

  server.on('connection', (socket: Socket) => {
    open++;
    socket.on('close', closed);
    watchIdle(socket, settled);
    // A socket being destroyed still counts until its 'close': each new one past the cap makes
    // its own room or is refused (an idle connection may have turned busy since it was counted).
    if (open > max && !reclaim()) {
      socket.destroy();
      onRefused();
    }
  });
}

/**
 * Whether nothing is in flight on a connection: every request it was sent read whole and
 * answered, no response being written. Whether a next request has begun shows in the bytes
 * received once the connection is idle; one whose first bytes came before the last response was
 * written cannot be seen (node's own keep-alive timeout closes such a connection as idle too).
 */
function isIdle(socket: Socket): boolean {
  return !socket.destroyed && allAnswered(socket) && socket.writableLength === 0;
}
