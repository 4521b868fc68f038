/**
 * Servers that attack the client checking them, for `checkServer` to survive: raw `node:net`
 * servers that answer every request in one hostile way, and count the connections they see
 * open (those that carried a request apart) and the bytes they write on each.
 *
 * @module
 */

import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';

/** What must never reach a terminal from a server: C0 but the newline, DEL, C1, bidi controls. */
export const FORBIDDEN =
  // oxlint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** A hostile server on a free loopback port. */
export interface HostileServer {
  readonly url: string;
  /** How many connections it has accepted. */
  readonly accepted: () => number;
  /** How many of them are still open. */
  readonly open: () => number;
  /** How many of those carried a request. */
  readonly openWithRequest: () => number;
  /** The most bytes it wrote on any one connection. */
  readonly mostWritten: () => number;
  /** Resolves once every connection that carried a request has closed. */
  readonly requestsClosed: () => Promise<void>;
  /** Resolves once every connection it accepted has closed. */
  readonly allClosed: () => Promise<void>;
  close(): Promise<void>;
}

/** What the server does with a connection once a request's head has arrived. */
export type Behaviour = (socket: Socket) => void;

/** Starts a server that answers each request's head with `behaviour`. */
export async function hostileServer(behaviour: Behaviour): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const carrying = new Set<Socket>();
  const written = new Map<Socket, number>();
  let accepted = 0;
  let waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (done() ? resolve() : waiters.push(check));
      check();
    });
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    written.set(socket, 0);
    socket.on('error', () => {});
    socket.on('close', () => {
      written.set(socket, socket.bytesWritten);
      sockets.delete(socket);
      carrying.delete(socket);
      wake();
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      carrying.add(socket);
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      // The body, if any, is never read: the answer does not depend on it.
      socket.resume();
      behaviour(socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => sockets.size,
    openWithRequest: () => carrying.size,
    mostWritten: () =>
      Math.max(0, ...written.values(), ...[...sockets].map((socket) => socket.bytesWritten)),
    requestsClosed: () => until(() => carrying.size === 0),
    allClosed: () => until(() => sockets.size === 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        waiters = [];
        server.close(() => resolve());
      }),
  };
}

/** Writes `head` and then nothing, ever. */
export function headOnly(head: string): Behaviour {
  return (socket) => {
    socket.write(head);
  };
}

/** Writes chunks of `chunk` as fast as the client reads them, up to `limit` bytes, then stops. */
export function streams(head: string, chunk: string, limit: number): Behaviour {
  return (socket) => {
    socket.write(head);
    let sent = 0;
    const more = (): void => {
      while (sent < limit && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', more);
          return;
        }
      }
    };
    more();
  };
}

/** Writes `head`, then one byte of the body a second. */
export function trickles(head: string): Behaviour {
  return (socket) => {
    socket.write(head);
    const timer = setInterval(() => socket.write('a'), 1000);
    socket.on('close', () => clearInterval(timer));
  };
}

/** Writes `head` and part of the body, then drops the connection. */
export function closesMidBody(head: string, part: string): Behaviour {
  return (socket) => {
    socket.write(head + part, () => socket.destroy());
  };
}

/** A response head with `status` and `headers`, each given as a line `Name: value`. */
export function responseHead(status: string, ...headers: string[]): string {
  return `HTTP/1.1 ${status}\r\n${headers.map((line) => `${line}\r\n`).join('')}\r\n`;
}

/** Text meant for a terminal: clear the screen, set its title, colour, DEL, bidi overrides. */
const CONTROLS =
  '\x1b[2J\x1b]0;owned\x07 \x9b31m \x7f \u202eevil\u202c \u2066\u2069 \u200e\u200f\u061c \u2028';

/** `CONTROLS` as every message must quote it. */
export const ESCAPED =
  '\\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m \\u007f \\u202eevil\\u202c \\u2066\\u2069 \\u200e\\u200f\\u061c \\u2028';

/**
 * A server that answers every request with `CONTROLS` as its body, and a C1 control in its
 * Content-Type; `/openapi.json` with `200`, so that its check reads that header, all else `418`.
 */
export async function sendsControls(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    response.writeHead(request.url === '/openapi.json' ? 200 : 418, {
      'content-type': 'text/\x9b31m',
    });
    response.end(CONTROLS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
