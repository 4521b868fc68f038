// A web request's body within the limit: read whole when its length is declared, streamed and
// counted when not (docs/DECISIONS.md).

import { PlantApiError } from '../errors.ts';
import type { BodySink } from '../operation/plain-request.ts';

/**
 * Reads a body of declared length, already within the limit: a server frames it by that length,
 * so only a request built in process can differ (`ERR_BODY_LENGTH_MISMATCH`).
 */
export function readDeclaredBody(request: Request, declaredLength: number, sink: BodySink): void {
  let reading: Promise<ArrayBuffer>;
  try {
    reading = request.arrayBuffer();
  } catch (error) {
    // Some runtimes throw for a used body rather than reject.
    reading = Promise.reject(error);
  }
  reading.then(
    (buffer) => {
      if (buffer.byteLength === declaredLength) sink.take(new Uint8Array(buffer));
      else sink.take('ERR_BODY_LENGTH_MISMATCH');
    },
    (error: unknown) => {
      // A body read or held first is refused with a TypeError; the checks run only then, so the
      // usual read looks at no stream. Once our read began, `bodyUsed` is true whatever stopped it.
      const refused =
        error instanceof TypeError && (request.bodyUsed || request.body?.locked === true);
      sink.fail(refused ? bodyAlreadyRead() : error);
    },
  );
}

/** Reads a stream whole into `sink`, cancelling it past `maxBytes`; never rejects. */
export async function readBodyStream(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  sink: BodySink,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Inside the try: a stream someone else holds throws here.
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

/** A body parser or validator in front of the store read the body first (its message says so). */
export function bodyAlreadyRead(): PlantApiError {
  return new PlantApiError('ERR_BODY_ALREADY_READ');
}
