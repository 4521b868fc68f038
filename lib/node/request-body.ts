/**
 * The request body of an `IncomingMessage`, read the three ways the listener needs: whole and
 * capped for the plant store's fast path, as a web `ReadableStream` for a native `Request`, and
 * drained (capped) after a response that left it unread, so the connection can serve on.
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';
import type { BodySink } from '../operation/plain-request.ts';
import { bodyAlreadyRead } from '../operation/read-body.ts';
import type { ListenerConfig } from './listener-config.ts';

/** The error a read fails with, and the reason a watch gives, once the client went away. */
export function clientGone(): DOMException {
  return new DOMException('the client went away', 'AbortError');
}

/** Whether something other than this listener has read from the request body already. */
export function wasRead(req: IncomingMessage): boolean {
  return req.readableEnded || req.readableDidRead;
}

/** What the generic path knows of the body stream it handed the handler. */
export interface BodyState {
  /** The `'data'` listener feeding the body stream, once the handler started reading. */
  onData: ((chunk: Buffer) => void) | undefined;
}

/**
 * Reads a request body whole into `sink`, counting bytes and stopping (pausing the socket) past
 * `maxBytes`; the rest is drained, capped, after the response. The body is handed over inside
 * the `end` event, so a store whose collaborators answer synchronously answers right there.
 */
export function readRequestBody(req: IncomingMessage, maxBytes: number, sink: BodySink): void {
  // A host's body parser (express.json(), say) read the body first; a gone client sends no more
  // events.
  if (wasRead(req)) {
    sink.fail(bodyAlreadyRead());
    return;
  }
  if (req.destroyed) {
    sink.fail(clientGone());
    return;
  }
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
    if (settled || req.complete) return;
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
        if (wasRead(req)) {
          // A host (a body parser under Express) consumed the body before us: an empty body
          // would pass for one the client never sent.
          settled = true;
          controller.error(bodyAlreadyRead());
          return;
        }
        if (req.destroyed) {
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
          if (!req.complete) finish(clientGone());
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
 * request, within the byte and time caps; past either the connection is closed.
 */
export function drainRequest(req: IncomingMessage, body: BodyState, config: ListenerConfig): void {
  if (req.destroyed) return;
  if (body.onData !== undefined) req.off('data', body.onData);
  body.onData = undefined;
  let bytes = 0;
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
  const onData = (chunk: Buffer): void => {
    bytes += chunk.byteLength;
    if (bytes > config.maxDrainBytes) cut();
  };
  const timer = setTimeout(cut, config.drainTimeout);
  timer.unref();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
