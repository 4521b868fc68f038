/**
 * One answer to `POST /plants`, read as the contract says it may be: a Plant on success, the
 * Error body otherwise, anything else an `ERR_UNEXPECTED_RESPONSE`. The body is read up to a cap.
 *
 * @module
 */

import type { Plant } from '../types.ts';
import { abortable } from './abortable.ts';
import { PlantClientError } from './plant-client-error.ts';

/** The most of an answer read: a Plant echoes the request, so twice its size if that is more. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads an answer: the Plant of a `2xx`, or throws the error it stands for.
 *
 * @param response The answer.
 * @param sentBytes The request body's size, which the Plant echoes.
 * @param signal Stops the read.
 * @returns The Plant, with only its declared fields.
 * @throws {PlantClientError} `ERR_STATUS` for an error status with the Error body,
 *   `ERR_UNEXPECTED_RESPONSE` for any answer the contract does not allow.
 * @example
 * ```ts
 * const plant = await readAnswer(response, body.length, signal);
 * ```
 */
export async function readAnswer(
  response: Response,
  sentBytes: number,
  signal: AbortSignal,
): Promise<Plant> {
  const answer = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
  };
  const refuse = (why: string) =>
    new PlantClientError(
      'ERR_UNEXPECTED_RESPONSE',
      `the answer to POST /plants (${answer.status}) ${why}`,
      answer,
    );
  const cap = Math.max(MAX_ANSWER_BYTES, 2 * sentBytes);
  const bytes = await readCapped(response, cap, signal);
  if (bytes === undefined) throw refuse(`is over ${cap} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    throw refuse('is not UTF-8 JSON');
  }
  const { name, tag, error, message } = (value ?? {}) as Record<string, unknown>;
  if (response.ok) {
    if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
      throw refuse('is not a Plant { name, tag? }');
    }
    return tag === undefined ? { name } : { name, tag };
  }
  if (!Number.isInteger(error) || typeof message !== 'string') {
    throw refuse('is not an Error body { error, message }');
  }
  throw new PlantClientError('ERR_STATUS', message, { ...answer, error: error as number });
}

/** The body's bytes, or `undefined` past `cap` (declared or read), the rest cancelled unread. */
async function readCapped(
  response: Response,
  cap: number,
  signal: AbortSignal,
): Promise<ArrayBuffer | undefined> {
  if (response.body === null) return new ArrayBuffer(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  try {
    if (Number(response.headers.get('content-length')) > cap) return undefined;
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) return await new Blob(chunks).arrayBuffer();
      size += value.byteLength;
      if (size > cap) return undefined;
      chunks.push(value);
    }
  } finally {
    // Stops a body left unread (past the cap, or on an error); a no-op once it is done.
    reader.cancel().catch(() => {});
  }
}

/**
 * `Retry-After` (RFC 9110 section 10.2.3) in seconds: a delay as sent, an HTTP date as the
 * seconds from now to it (`0` when past); `undefined` when absent or unreadable.
 *
 * @param value The header's value.
 * @returns Whole seconds, or `undefined`.
 * @example
 * ```ts
 * retryAfterSeconds('120'); // 120
 * ```
 */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date is in GMT; without the zone, Date.parse would read it as local time.
  const at = value.endsWith(' GMT') ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
