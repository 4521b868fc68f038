import type { BodySink } from './_plain-handler.ts';

/** Why a body could not be read whole. */
export type BodyReadFailure = 'ERR_BODY_TOO_LARGE' | 'ERR_BODY_REQUIRED';

/**
 * Reads a body stream whole into `sink`, counting bytes as they arrive and stopping (and
 * cancelling the stream) as soon as they exceed `maxBytes`, so memory stays bounded by the
 * limit. The sink gets the bytes, or why there are none (more than `maxBytes`, or an empty
 * body), or the error; the returned promise never rejects.
 */
export async function readBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  sink: BodySink,
): Promise<void> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
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
