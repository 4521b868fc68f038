/**
 * `serve`'s connection cap: at the cap the longest-idle connection is closed to make room, as nginx
 * does, and a new one is refused only while every open connection is busy.
 * @module
 */

import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { allAnswered, watchIdle } from './connection.ts';
import { count } from './listener-config.ts';
import { openFileLimit } from './open-file-limit.ts';

/** `serve`'s default `maxConnections`, lowered where the open-file limit leaves less room. */
export const DEFAULT_MAX_CONNECTIONS = 4096;

/** Descriptors kept for the listening sockets, a database pool, stdio and log files. */
const RESERVED_DESCRIPTORS = 128;

/** The cap in effect: never more than the open-file limit leaves room for, or the pool starves. */
export function maxConnectionsFor(
  maxConnections: number | undefined,
  limit = openFileLimit(),
): number {
  const wanted = count(maxConnections, DEFAULT_MAX_CONNECTIONS, 'maxConnections', 1);
  if (limit === undefined) return wanted;
  // Under a very low limit, half of it rather than nothing.
  return Math.min(wanted, Math.max(limit - RESERVED_DESCRIPTORS, Math.floor(limit / 2), 1));
}

/** Caps `server`'s open connections at `max`; `onRefused` must not throw. */
export function capConnections(server: Server, max: number, onRefused: () => void): void {
  // Each idle connection with the bytes it had received then: any byte more begins a request.
  const idle = new Map<Socket, number>();
  let open = 0;
  // Node drops a connection past `maxConnections` before it makes a socket; one more per idle
  // connection lets a new one in to replace it.
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
      res.once('finish', () => settled(res));
    } else if (!res.req.complete) {
      res.req.once('end', () => settled(res));
    } else if (isIdle(socket)) {
      // Deleted first, so the order stays the order in which they became idle.
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
    // A destroyed socket counts until its 'close': each one past the cap makes its own room.
    if (open > max && !reclaim()) {
      socket.destroy();
      onRefused();
    }
  });
}

/** Whether every request on the connection was read whole and answered, and nothing is queued. */
function isIdle(socket: Socket): boolean {
  return !socket.destroyed && allAnswered(socket) && socket.writableLength === 0;
}
