import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorReply } from '../errors.ts';
import { guardHook } from '../guards/call-hook.ts';
import { targetPath } from './node-request.ts';
import { assignedRequestId, assignRequestId, newRequestId } from './request-id.ts';
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

/** The observer the options ask for, or `undefined`; a hook that throws tells `onError`. */
export function observerOf(
  options: ServeOptions,
  onError: (error: unknown) => void,
): Observer | undefined {
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
  return {
    requestIds,
    onRequestStart: onRequestStart && guardHook<void>(onRequestStart, onError),
    onRequestEnd: onRequestEnd && guardHook(onRequestEnd, onError),
  };
}

/** What a response carries while it is followed to its end. */
interface FollowedResponse extends ServerResponse {
  [FOLLOWED]?: { readonly onEnd: (record: RequestRecord) => void; readonly started: number };
}
const FOLLOWED: unique symbol = Symbol('plant-store.followed');

/** Gives a request its id and follows it to its end, as the observer asks. */
export function observeRequest(
  observer: Observer,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  // The id goes out with the response's head (`send.ts`), where the answer is written.
  if (observer.requestIds) assignRequestId(req);
  observer.onRequestStart?.();
  if (observer.onRequestEnd === undefined) return;
  (res as FollowedResponse)[FOLLOWED] = {
    onEnd: observer.onRequestEnd,
    started: performance.now(),
  };
  // One shared listener rather than a closure per request.
  res.on('close', recordEnd);
}

function recordEnd(this: FollowedResponse): void {
  const followed = this[FOLLOWED];
  if (followed === undefined) return;
  const req = this.req;
  let bytesIn = 0;
  let bytesOut = 0;
  // An HTTP/2 connection's bytes are shared by its streams: none is a request's own.
  if (req.httpVersionMajor !== 2) {
    const socket = req.socket as MarkedSocket;
    const read = socket.bytesRead;
    const written = socket.bytesWritten;
    bytesIn = read - (socket[READ] ?? 0);
    bytesOut = written - (socket[WRITTEN] ?? 0);
    socket[READ] = read;
    socket[WRITTEN] = written;
  }
  followed.onEnd({
    requestId: assignedRequestId(req),
    method: req.method ?? '',
    // A target that is no path (`*`, absolute form) is logged as it came.
    path: targetPath(req.url) ?? req.url ?? '',
    status: this.writableFinished ? this.statusCode : 0,
    durationMs: performance.now() - followed.started,
    bytesIn,
    bytesOut,
  });
}

/** Gives a reply written straight to a socket an id and a record, as far as one is known. */
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
