/**
 * The request body of an `IncomingMessage`, read the three ways the listener needs: whole and
 * capped for a plant store's route, as a web `ReadableStream` for a native `Request`, and
 * drained (capped) after a response that left it unread, so the connection can serve on.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodySink } from '../operation/plain-request.ts';
import { bodyAlreadyRead } from '../store/read-body.ts';
import { continueWithheld, sendContinue } from './connection.ts';
import { closeStreamAfterResponse, isHttp2 } from './http2.ts';
import type { ListenerConfig } from './listener-config.ts';

/** The error a read fails with, and the reason a watch gives, once the client went away. */
export function clientGone(): DOMException {
  return new DOMException('the client went away', 'AbortError');
}

/** Whether something other than this listener has read from the request body already. */
export function wasRead(req: IncomingMessage): boolean {
  return req.readableEnded || req.readableDidRead;
}

/**
 * Whether the client left before the exchange was over. An HTTP/2 request whose stream was
 * reset is not destroyed but marked aborted, and ended as if its body were whole.
 */
function clientLeft(req: IncomingMessage): boolean {
  return req.destroyed || req.aborted;
}

/** Whether the body arrived whole: HTTP/2 counts a reset request as complete too. */
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
 * Decides, before a response is written, what becomes of a request body still unread: drained
 * after the response, so the connection serves on, when it is known to be small enough; else
 * the response says `Connection: close` and the connection closes after it. Closed: a `413`
 * (reading the body it refused would defeat it), a body whose `100 Continue` was never sent
 * (the client may never send it), and a chunked body or one over `maxDrainBytes`. On HTTP/2
 * only the request's stream is closed, after the response.
 *
 * @returns Whether the unread body is to be drained.
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

/**
 * Reads a request body whole into `sink`, counting bytes and stopping (pausing the socket) past
 * `maxBytes`; the rest is drained, capped, after the response. The body is handed over inside
 * the `end` event, so a store whose collaborators answer synchronously answers right there.
 */
export function readRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  sink: BodySink,
): void {
  // A host's body parser (express.json(), say) read the body first, unless node dropped it for
  // a client that reset its HTTP/2 stream; a gone client sends no more events.
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
  // Set once the sink has its answer; later events are ignored rather than unsubscribed from,
  // which costs less, and the request is done with soon after anyway.
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      settled = true;
      req.pause();
      sink.take('ERR_BODY_TOO_LARGE');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    if (size === 0) sink.take('ERR_BODY_REQUIRED');
    // Most bodies arrive as one chunk: hand it over without a copy.
    else sink.take(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  });
  // With an 'error' listener node reports a lost client as an error too; 'close' covers both.
  req.on('close', () => {
    if (settled || arrivedWhole(req)) return;
    settled = true;
    sink.fail(clientGone());
  });
}

/**
 * The request body as a byte stream. `highWaterMark: 0` keeps it lazy: nothing is read from
 * the socket until the handler reads, so a rejected request costs no body reading at all.
 */
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
          // A host (a body parser under Express) consumed the body before us: an empty body
          // would pass for one the client never sent.
          settled = true;
          controller.error(bodyAlreadyRead());
          return;
        }
        if (clientLeft(req)) {
          // The client left before the handler started reading: no event will come any more.
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
          // Backpressure: a chunk is queued that nobody asked for yet, so stop reading the
          // socket until the next pull.
          if ((controller.desiredSize ?? 0) < 0) req.pause();
        };
        req.on('data', body.onData);
        req.once('end', () => finish());
        req.once('error', (error) => finish(error));
        req.once('close', () => {
          if (arrivedWhole(req)) return;
          // The signal first: a handler whose read fails then sees a client that left, not a
          // fault, whichever of the request and the response closes first.
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
 * Reads and throws away what is left of a request body, so the connection can serve its next
 * request, within the byte and time caps; past either the connection is closed. The byte cap
 * counts what arrives on the wire, not the decoded body: a body sent in one-byte chunks costs
 * six times its size in framing, and parsing it costs the server as much.
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
    req.off('end', stop);
    req.off('close', stop);
  };
  const cut = (): void => {
    stop();
    req.socket.destroy();
  };
  const onData = (): void => {
    if (socket.bytesRead - start > config.maxDrainBytes) cut();
  };
  const timer = setTimeout(cut, config.drainTimeout);
  timer.unref();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
