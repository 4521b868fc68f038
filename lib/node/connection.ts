/**
 * `serve`'s connections: one state per socket, made when it connects and written, never grown,
 * as its requests come and go. From it: which answer a parser error must wait for (RFC 9112
 * section 9.6), bytes after `Connection: close` never executed, a body reader told when its client
 * leaves, and, only when a new connection arrives at the cap, the idle one to close for it.
 * @module
 */

import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

const STATE: unique symbol = Symbol('plant-store.connection');
const CONTINUE: unique symbol = Symbol('plant-store.continue');
const TAKEN_OVER: unique symbol = Symbol('plant-store.taken-over');

/** Answers served in this process: when a connection last came to rest, in that count. */
let answers = 0;

/** A socket's state under `serve`. */
export class Connection {
  /** The response to the latest request on the socket. */
  response: ServerResponse | undefined = undefined;
  /** The bytes read when its latest answer left or its unread body was drained. */
  restBytes = -1;
  /** When it came to rest, as `answers` counted then: the longest idle has the lowest. */
  restedAt = 0;
  /** Told if the connection closes while a body is being read whole. */
  onClientLeft: (() => void) | undefined = undefined;
  /** Closed to make room for a new connection: the room lasts until it is gone. */
  reclaimed = false;
  readonly socket: Socket;

  constructor(socket: Socket) {
    this.socket = socket;
  }

  /** The latest request on the socket. */
  get request(): IncomingMessage | undefined {
    return this.response?.req;
  }

  /** The latest response if it has not ended yet. */
  get owed(): ServerResponse | undefined {
    const response = this.response;
    return response !== undefined && !response.writableEnded ? response : undefined;
  }

  /** The latest request if its body is still arriving. */
  get incoming(): IncomingMessage | undefined {
    const request = this.request;
    return request !== undefined && !request.complete ? request : undefined;
  }

  /** Whether its latest answer said `Connection: close`: later bytes are never executed. */
  get closing(): boolean {
    const response = this.response;
    return response !== undefined && response.writableEnded && !response.shouldKeepAlive;
  }

  /** Served at least once, every answer out, every body read, and not a byte since. */
  get idle(): boolean {
    const { socket, request, response } = this;
    return (
      request !== undefined &&
      request.complete &&
      response !== undefined &&
      response.writableFinished &&
      response.shouldKeepAlive &&
      !socket.destroyed &&
      socket.writableLength === 0 &&
      socket.bytesRead === this.restBytes
    );
  }
}

export function connectionOf(socket: Duplex | null | undefined): Connection | undefined {
  return (socket as { [STATE]?: Connection } | null | undefined)?.[STATE];
}

/** Notes that an answer to `req` left, or its unread body was drained: its connection rests. */
export function cameToRest(req: IncomingMessage): void {
  // HTTP/2 multiplexes a connection (`serve` has none), and its socket may be gone with its stream.
  if (req.httpVersionMajor === 2) return;
  const connection = connectionOf(req.socket);
  if (connection !== undefined) {
    connection.restBytes = req.socket.bytesRead;
    connection.restedAt = ++answers;
  }
}

/** Marks a response as answered by the connection handling: the handler's answer is dropped. */
export function takeOver(res: ServerResponse): void {
  (res as { [TAKEN_OVER]?: boolean })[TAKEN_OVER] = true;
}

export function isTakenOver(res: ServerResponse): boolean {
  return (res as { [TAKEN_OVER]?: boolean })[TAKEN_OVER] === true;
}

/** Holds `100 Continue` back until the request's body is first read. */
export function holdContinue(res: ServerResponse): void {
  (res as { [CONTINUE]?: boolean })[CONTINUE] = true;
}

export function sendContinue(res: ServerResponse): void {
  const marked = res as { [CONTINUE]?: boolean };
  if (marked[CONTINUE] === true && !res.headersSent) {
    marked[CONTINUE] = false;
    res.writeContinue();
  }
}

/** Whether a `100 Continue` was held back and never sent: the client may never send the body. */
export function continueWithheld(res: ServerResponse): boolean {
  return (res as { [CONTINUE]?: boolean })[CONTINUE] === true;
}

/** `serve`'s default `maxConnections`, lowered where the open-file limit leaves less room. */
export const DEFAULT_MAX_CONNECTIONS = 4096;

/** Descriptors kept for the listening sockets, a database pool, stdio and log files. */
const RESERVED_DESCRIPTORS = 128;

/** The cap in effect: never more than the open-file limit leaves room for, or the pool starves. */
export function maxConnectionsFor(wanted: number): number {
  const limit = openFileLimit();
  if (limit === undefined) return wanted;
  // Under a very low limit, half of it rather than nothing.
  return Math.min(wanted, Math.max(limit - RESERVED_DESCRIPTORS, Math.floor(limit / 2), 1));
}

/** The soft limit on open files, from `/proc` on Linux; `undefined` when unlimited or unknown. */
function openFileLimit(): number | undefined {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'latin1');
  } catch {
    return undefined;
  }
  const soft = Number(/^Max open files\s+(\d+)\s/m.exec(limits)?.[1]);
  return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
}

/** A server's connections, each with its state, at most `max` open at once. */
export class Connections {
  readonly #open = new Set<Connection>();
  readonly #server: Server;
  readonly #max: number;
  readonly #onRefused: () => void;

  /** `onRefused` must not throw. */
  constructor(server: Server, max: number, onRefused: () => void) {
    this.#server = server;
    this.#max = max;
    this.#onRefused = onRefused;
    // Node drops a connection past `maxConnections` before it makes a socket; the one more it
    // lets in is judged here, and each idle connection closed for a newcomer makes room for one.
    server.maxConnections = max + 1;
    server.on('drop', onRefused);
    server.on('connection', (socket: Socket) => this.#connected(socket));
  }

  /** Has every answer not yet begun say `Connection: close`: a closing server's first step. */
  endKeepAlive(): void {
    for (const { response } of this.#open) {
      if (response !== undefined && !response.headersSent) response.shouldKeepAlive = false;
    }
  }

  #connected(socket: Socket): void {
    const connection = new Connection(socket);
    (socket as { [STATE]?: Connection })[STATE] = connection;
    this.#open.add(connection);
    socket.once('close', () => this.#closed(connection));
    // A socket being closed counts until its 'close': each one past the cap makes its own room.
    if (this.#open.size <= this.#max) return;
    const idle = this.#longestIdle();
    if (idle === undefined) {
      socket.destroy();
      this.#onRefused();
      return;
    }
    idle.reclaimed = true;
    this.#server.maxConnections++;
    idle.socket.destroy();
  }

  #closed(connection: Connection): void {
    this.#open.delete(connection);
    if (connection.reclaimed) this.#server.maxConnections--;
    connection.onClientLeft?.();
  }

  /**
   * The connection idle the longest, if any. Looked for only when a newcomer needs room, and at
   * most once per newcomer node lets in: past the cap, node drops the rest before any socket.
   */
  #longestIdle(): Connection | undefined {
    let found: Connection | undefined;
    for (const connection of this.#open) {
      if (
        !connection.reclaimed &&
        (found === undefined || connection.restedAt < found.restedAt) &&
        connection.idle
      ) {
        found = connection;
      }
    }
    return found;
  }
}
