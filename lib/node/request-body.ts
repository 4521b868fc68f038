/**
 * A request body read whole for a store's route, streamed for a native `Request`, or drained after
 * a response that left it unread.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodySink } from '../operation/plain-request.ts';
import { bodyAlreadyRead } from '../store/read-body.ts';
import { cameToRest, connectionOf, continueWithheld, sendContinue } from './connection.ts';
import { closeStreamAfterResponse, isHttp2 } from './http2.ts';
import type { ListenerConfig } from './types.ts';

/** The error a read fails with, and the reason a watch gives, once the client went away. */
export function clientGone(): DOMException {
  return new DOMException('the client went away', 'AbortError');
}

/** Whether something other than this listener has read from the request body already. */
export function wasRead(req: IncomingMessage): boolean {
  return req.readableEnded || req.readableDidRead;
}

/** Whether the client left; an HTTP/2 request whose stream was reset is aborted, not destroyed. */
function clientLeft(req: IncomingMessage): boolean {
  return req.destroyed || req.aborted;
}

/** Whether the body arrived whole: HTTP/2 marks a reset request complete too. */
function arrivedWhole(req: IncomingMessage): boolean {
  return req.complete && !req.aborted;
}

/** What the listener knows of the body stream it handed a handler in a native `Request`. */
export interface BodyState {
  /** The response, which may owe a `100 Continue` once the body is first read. */
  readonly res: ServerResponse;
  /** Aborts the request's signal: the client went away. */
  readonly clientLeft: () => void;
  /** The `'data'` listener feeding the body stream, once the handler started reading. */
  onData: ((chunk: Buffer) => void) | undefined;
}

/**
 * Whether an unread request body is to be drained after the response; else the connection closes:
 * after a `413`, a chunked body, one past `maxDrainBytes` or whose `100 Continue` was withheld.
 */
export function keepAliveOrClose(
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  status: number,
): boolean {
  if (req.complete) return false;
  if (isHttp2(req)) {
    // The connection needs no drained body to go on: its other streams are framed apart.
    closeStreamAfterResponse(res, config.drainTimeout);
    return false;
  }
  const { 'content-length': declared, 'transfer-encoding': coding } = req.headers;
  // No body at all: the request is complete but for node's last step.
  if (coding === undefined && (declared === undefined || declared === '0')) return false;
  const drainable =
    status !== 413 &&
    !continueWithheld(res) &&
    coding === undefined &&
    Number(declared) <= config.maxDrainBytes;
  if (!drainable) res.shouldKeepAlive = false;
  return drainable && res.shouldKeepAlive;
}

/** Reads a request body whole into `sink`, pausing the socket past `maxBytes`. */
export function readRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  sink: BodySink,
): void {
  // A host's body parser read it first, unless node dropped it for a reset HTTP/2 stream.
  if (wasRead(req) && !req.aborted) {
    sink.fail(bodyAlreadyRead());
    return;
  }
  if (clientLeft(req)) {
    sink.fail(clientGone());
    return;
  }
  // The checks that need only the headers passed: now the client may send the body.
  sendContinue(res);
  const chunks: Buffer[] = [];
  let size = 0;
  // Once the sink has its answer, later events are ignored rather than unsubscribed from.
  let settled = false;
  // Under `serve` the connection hears its socket close, once for all its requests.
  const connection = isHttp2(req) ? undefined : connectionOf(req.socket);
  const left = (): void => {
    if (settled || arrivedWhole(req)) return;
    settled = true;
    sink.fail(clientGone());
  };
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      settled = true;
      if (connection !== undefined) connection.onClientLeft = undefined;
      req.pause();
      sink.take('ERR_BODY_TOO_LARGE');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (connection !== undefined) connection.onClientLeft = undefined;
    if (settled) return;
    settled = true;
    if (size === 0) sink.take('ERR_BODY_REQUIRED');
    // Most bodies arrive as one chunk: hand it over without a copy.
    else sink.take(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  });
  // With an 'error' listener node reports a lost client as an error too; 'close' covers both.
  if (connection === undefined) req.on('close', left);
  else connection.onClientLeft = left;
}

/** The request body as a stream; `highWaterMark: 0` reads the socket only as the handler reads. */
export function toBodyStream(req: IncomingMessage, body: BodyState): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (body.onData !== undefined) {
          req.resume();
          return;
        }
        sendContinue(body.res);
        if (wasRead(req) && !req.aborted) {
          // A host's body parser read it first: an empty stream would pass for no body.
          settled = true;
          controller.error(bodyAlreadyRead());
          return;
        }
        if (clientLeft(req)) {
          // The client left before the handler read: no event will come any more.
          settled = true;
          controller.error(clientGone());
          return;
        }
        const finish = (error?: unknown): void => {
          if (settled) return;
          settled = true;
          if (error === undefined) controller.close();
          else controller.error(error);
        };
        body.onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          // Backpressure: stop reading the socket until the next pull.
          if ((controller.desiredSize ?? 0) < 0) req.pause();
        };
        req.on('data', body.onData);
        req.once('end', () => finish());
        req.once('error', (error) => finish(error));
        req.once('close', () => {
          if (arrivedWhole(req)) return;
          // The signal first, so a handler whose read fails sees a client that left, not a fault.
          body.clientLeft();
          finish(clientGone());
        });
      },
      cancel() {
        // The handler is done with the body; the rest is drained (capped) after the response.
        if (body.onData !== undefined) req.off('data', body.onData);
        body.onData = undefined;
        settled = true;
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads and discards the rest of a request body within the byte and time caps, else closes the
 * connection. Bytes count on the wire, framing included: the server parses every one.
 */
export function drainRequest(
  req: IncomingMessage,
  body: { onData: ((chunk: Buffer) => void) | undefined } | undefined,
  config: ListenerConfig,
): void {
  if (req.destroyed) return;
  if (body?.onData !== undefined) {
    req.off('data', body.onData);
    body.onData = undefined;
  }
  const socket = req.socket;
  const start = socket.bytesRead;
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', drained);
    req.off('close', stop);
  };
  const cut = (): void => {
    stop();
    req.socket.destroy();
  };
  const onData = (): void => {
    if (socket.bytesRead - start > config.maxDrainBytes) cut();
  };
  const drained = (): void => {
    stop();
    cameToRest(req);
  };
  const timer = setTimeout(cut, config.drainTimeout);
  timer.unref();
  req.on('data', onData);
  req.once('end', drained);
  req.once('close', stop);
  req.resume();
}
