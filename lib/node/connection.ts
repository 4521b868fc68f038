/**
 * What a socket remembers between its requests, so that a parser error never costs an executed
 * request its response (RFC 9112 section 9.6).
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const OWED: unique symbol = Symbol('plant-store.owed-response');
const INCOMING: unique symbol = Symbol('plant-store.incoming-request');
const CLOSING: unique symbol = Symbol('plant-store.closing');
const TAKEN_OVER: unique symbol = Symbol('plant-store.taken-over');
const CONTINUE: unique symbol = Symbol('plant-store.continue');
const IDLE_WATCH: unique symbol = Symbol('plant-store.idle-watch');

interface ConnectionSocket {
  /** The response not yet handed whole to the socket. */
  [OWED]?: ServerResponse | undefined;
  /** The last request, kept while its body may still be arriving. */
  [INCOMING]?: IncomingMessage | undefined;
  /** Set once a response said `Connection: close`: later bytes are never executed. */
  [CLOSING]?: boolean;
  /** Hears each response handed over, under a connection cap (`connection-cap.ts`). */
  [IDLE_WATCH]?: ((res: ServerResponse) => void) | undefined;
}

interface MarkedResponse {
  /** Answered by the connection handling (a framing error): the handler's answer is dropped. */
  [TAKEN_OVER]?: boolean;
  /** `100 Continue` is owed when the body is first read (`serve` holds it back until then). */
  [CONTINUE]?: boolean;
}

/** Notes a request and its response as the ones the socket now owes. */
export function requestArrived(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket as ConnectionSocket;
  socket[OWED] = res;
  socket[INCOMING] = req;
}

/** Forgets `res` as owed once `end` handed it to its socket; a connection cap hears of it. */
export function handedOver(res: ServerResponse): void {
  // An HTTP/2 response owes its connection nothing, and has no socket once its stream closed.
  const socket = res.socket as ConnectionSocket | null | undefined;
  if (socket?.[OWED] === res) {
    socket[OWED] = undefined;
    if (!res.shouldKeepAlive) socket[CLOSING] = true;
    if (socket[INCOMING]?.complete === true) socket[INCOMING] = undefined;
  }
  // A pipelined response waiting for its turn has no socket yet: its request knows it.
  (res.req?.socket as ConnectionSocket | null | undefined)?.[IDLE_WATCH]?.(res);
}

export function watchIdle(socket: Duplex, watch: (res: ServerResponse) => void): void {
  (socket as ConnectionSocket)[IDLE_WATCH] = watch;
}

export function connectionOf(socket: Duplex): {
  readonly owed: ServerResponse | undefined;
  readonly incoming: IncomingMessage | undefined;
  readonly closing: boolean;
} {
  const state = socket as ConnectionSocket;
  return { owed: state[OWED], incoming: state[INCOMING], closing: state[CLOSING] === true };
}

/** Whether every request on a connection that stays open was read whole and answered whole. */
export function allAnswered(socket: Duplex): boolean {
  const state = socket as ConnectionSocket;
  const owed = state[OWED];
  const incoming = state[INCOMING];
  return (
    state[CLOSING] !== true &&
    (owed === undefined || owed.writableFinished) &&
    (incoming === undefined || incoming.complete)
  );
}

/** Whether a request arrived on a connection whose last response said it closes. */
export function arrivedAfterClose(req: IncomingMessage): boolean {
  return (req.socket as ConnectionSocket)[CLOSING] === true;
}

/** Marks a response as answered by the connection handling: the handler's answer is dropped. */
export function takeOver(res: ServerResponse): void {
  (res as MarkedResponse)[TAKEN_OVER] = true;
}

export function isTakenOver(res: ServerResponse): boolean {
  return (res as MarkedResponse)[TAKEN_OVER] === true;
}

/** Holds `100 Continue` back until the request's body is first read. */
export function holdContinue(res: ServerResponse): void {
  (res as MarkedResponse)[CONTINUE] = true;
}

export function sendContinue(res: ServerResponse): void {
  const marked = res as MarkedResponse;
  if (marked[CONTINUE] === true && !res.headersSent) {
    marked[CONTINUE] = false;
    res.writeContinue();
  }
}

/** Whether a `100 Continue` was held back and never sent: the client may never send the body. */
export function continueWithheld(res: ServerResponse): boolean {
  return (res as MarkedResponse)[CONTINUE] === true;
}
