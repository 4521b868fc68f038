/** Why a body could not be read whole. */
export type BodyReadFailure = 'ERR_BODY_TOO_LARGE' | 'ERR_BODY_REQUIRED';

/**
 * Reads a body stream whole, counting bytes as they arrive and stopping (and cancelling the
 * stream) as soon as they exceed `maxBytes`, so memory stays bounded by the limit.
 *
 * @returns The bytes, or why there are none: more than `maxBytes`, or an empty body.
 */
export async function readBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | BodyReadFailure> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => {}); // the rest is unwanted; a failing cancel changes nothing
      return 'ERR_BODY_TOO_LARGE';
    }
    chunks.push(value);
  }
  if (size === 0) return 'ERR_BODY_REQUIRED';
  // Most bodies arrive as one chunk: hand it over without a copy.
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
