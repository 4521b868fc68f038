/**
 * What `serve` tells an operator about each request, when asked: an `X-Request-Id` on every
 * response, and a record of each request once it is over, for an access log and metrics. With
 * neither option a request costs nothing here.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorReply } from '../errors.ts';
import { assignRequestId, newRequestId } from './request-id.ts';
import type { RequestRecord, ServeOptions } from './types.ts';

const READ: unique symbol = Symbol('plant-store.bytes-read');
const WRITTEN: unique symbol = Symbol('plant-store.bytes-written');

/** A socket, with what its previous requests moved. */
interface MarkedSocket {
  readonly bytesRead: number;
  readonly bytesWritten: number;
  [READ]?: number;
  [WRITTEN]?: number;
}

/** The observing options of `serve`, resolved. */
export interface Observer {
  readonly requestIds: boolean;
  readonly onRequestStart: (() => void) | undefined;
  readonly onRequestEnd: ((record: RequestRecord) => void) | undefined;
}

/** The observer `serve`'s options ask for, or `undefined` when they ask for none. */
export function observerOf(options: ServeOptions): Observer | undefined {
  const { requestIds = false, onRequestStart, onRequestEnd } = options;
  if (typeof requestIds !== 'boolean') throw new TypeError('requestIds must be a boolean');
  for (const [name, hook] of [
    ['onRequestStart', onRequestStart],
    ['onRequestEnd', onRequestEnd],
  ] as const) {
    if (hook !== undefined && typeof hook !== 'function') {
      throw new TypeError(`${name} must be a function`);
    }
  }
  if (!requestIds && onRequestStart === undefined && onRequestEnd === undefined) return undefined;
  return { requestIds, onRequestStart, onRequestEnd };
}

/** The path of a request target, without its query. */
function pathOnly(target: string | undefined): string {
  if (target === undefined) return '';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** Gives a request its id and follows it to its end, as the observer asks. */
export function observeRequest(
  observer: Observer,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const requestId = observer.requestIds ? assignRequestId(req) : undefined;
  if (requestId !== undefined) res.setHeader('x-request-id', requestId);
  const { onRequestStart, onRequestEnd } = observer;
  onRequestStart?.();
  if (onRequestEnd === undefined) return;
  const started = performance.now();
  const socket = req.socket as MarkedSocket;
  res.once('close', () => {
    // What the connection moved since the previous request on it ended: this one's head and
    // body each way (a request pipelined behind it may count toward it).
    const read = socket.bytesRead;
    const written = socket.bytesWritten;
    const bytesIn = read - (socket[READ] ?? 0);
    const bytesOut = written - (socket[WRITTEN] ?? 0);
    socket[READ] = read;
    socket[WRITTEN] = written;
    onRequestEnd({
      requestId,
      method: req.method ?? '',
      path: pathOnly(req.url),
      status: res.writableFinished ? res.statusCode : 0,
      durationMs: performance.now() - started,
      bytesIn,
      bytesOut,
    });
  });
}

/**
 * Prepares an answer written straight to a socket (a request the parser rejected, a `CONNECT`):
 * it gets an id of its own, and its record, as far as one is known.
 */
export function observeRawReply(
  observer: Observer,
  reply: ErrorReply,
  method = '',
  path = '',
): ErrorReply {
  const requestId = observer.requestIds ? newRequestId() : undefined;
  observer.onRequestStart?.();
  observer.onRequestEnd?.({
    requestId,
    method,
    path,
    status: reply.status,
    durationMs: 0,
    bytesIn: 0,
    bytesOut: 0,
  });
  return requestId === undefined
    ? reply
    : { ...reply, headers: { ...reply.headers, 'x-request-id': requestId } };
}
