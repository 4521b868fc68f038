/**
 * Reading a web request's body within the size limit: whole, with the runtime's own reader,
 * when the request declares its length; as a stream, counted, when it does not. And the error
 * for a body a host read before the store could.
 *
 * @module
 */

import { PlantApiError } from '../errors.ts';
import type { BodySink } from '../operation/plain-request.ts';

/**
 * Reads a body whose length the request declares (already checked against the limit) with the
 * runtime's own reader, and hands it to `sink` when it has exactly that length. A server frames
 * a body by its `Content-Length`, so the read is bounded by it; a request built in process
 * whose body is longer or shorter than it declares gets `ERR_BODY_LENGTH_MISMATCH`. A body a
 * host read or locked first is told from the reader's refusal, so that the usual read looks at
 * no stream and no `bodyUsed`; a read that fails once begun fails with its own error.
 * The runtime's own reader rather than a stream loop: on Bun and Deno a `getReader()` loop is
 * far dearer than `arrayBuffer()`.
 */
export function readDeclaredBody(request: Request, declaredLength: number, sink: BodySink): void {
  let reading: Promise<ArrayBuffer>;
  try {
    reading = request.arrayBuffer();
  } catch (error) {
    // A runtime that threw for a used body, rather than reject, is answered the same way.
    reading = Promise.reject(error);
  }
  reading.then(
    (buffer) => {
      if (buffer.byteLength === declaredLength) sink.take(new Uint8Array(buffer));
      else sink.take('ERR_BODY_LENGTH_MISMATCH');
    },
    (error: unknown) => {
      // Every runtime refuses a body something else read or holds with a TypeError, before
      // reading. After our own read began, `bodyUsed` is true whatever stopped it.
      const refused =
        error instanceof TypeError && (request.bodyUsed || request.body?.locked === true);
      sink.fail(refused ? bodyAlreadyRead() : error);
    },
  );
}

/**
 * Reads a body stream whole into `sink`, counting bytes as they arrive and stopping (and
 * cancelling the stream) as soon as they exceed `maxBytes`, so memory stays bounded by the
 * limit. The sink gets the bytes, or why there are none (more than `maxBytes`, or an empty
 * body), or the error; the returned promise never rejects.
 */
export async function readBodyStream(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  sink: BodySink,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Inside the try: a stream someone else holds throws here, and that must reach the sink.
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        reader.cancel().catch(() => {}); // the rest is unwanted; a failing cancel changes nothing
        return sink.take('ERR_BODY_TOO_LARGE');
      }
      chunks.push(value);
    }
    if (size === 0) return sink.take('ERR_BODY_REQUIRED');
    // Most bodies arrive as one chunk: hand it over without a copy.
    sink.take(
      chunks.length === 1
        ? (chunks[0] as Uint8Array)
        : new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer()),
    );
  } catch (error) {
    sink.fail(error);
  }
}

/**
 * The error of a request whose body something else read before the store could: a body parser
 * or validator mounted in front of it. Said for the host's `onError`; the client gets a `500`.
 */
export function bodyAlreadyRead(): PlantApiError {
  return new PlantApiError(
    'ERR_BODY_ALREADY_READ',
    'the request body was already read (a body parser such as express.json() ran first): ' +
      'mount plant-store before any body parser',
  );
}
