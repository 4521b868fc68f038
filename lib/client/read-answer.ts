/**
 * One answer to `POST /plants`, read as the contract says it may be: a Plant on success, the
 * Error body otherwise, anything else an `ERR_UNEXPECTED_RESPONSE`. The body is read up to a cap.
 *
 * @module
 */

import type { ErrorBody, Plant } from '../types.ts';
import { abortable } from './abortable.ts';
import { PlantClientError } from './plant-client-error.ts';

/** The most of an answer read: a Plant echoes the request, so twice its size if that is more. */
const MAX_ANSWER_BYTES = 1024 * 1024;

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
  const facts = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
  };
  const refuse = (why: string, cause?: unknown) =>
    new PlantClientError(
      'ERR_UNEXPECTED_RESPONSE',
      `the answer to POST /plants (${facts.status}) ${why}`,
      cause === undefined ? facts : { ...facts, cause },
    );
  const cap = Math.max(MAX_ANSWER_BYTES, 2 * sentBytes);
  const bytes = await readCapped(response, cap, signal, refuse);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw refuse('is not UTF-8 JSON', error);
  }
  const ok = facts.status >= 200 && facts.status < 300;
  if (ok && isPlant(value)) {
    return value.tag === undefined ? { name: value.name } : { name: value.name, tag: value.tag };
  }
  if (ok) throw refuse('is not a Plant { name, tag? }');
  if (isErrorBody(value)) {
    throw new PlantClientError('ERR_STATUS', value.message, { ...facts, error: value.error });
  }
  throw refuse('is not an Error body { error, message }');
}

/** The body's bytes, refused past `cap` without reading further. */
async function readCapped(
  response: Response,
  cap: number,
  signal: AbortSignal,
  refuse: (why: string) => PlantClientError,
): Promise<Uint8Array> {
  const tooLarge = `is over ${cap} bytes`;
  if (Number(response.headers.get('content-length')) > cap) {
    await response.body?.cancel().catch(() => {});
    throw refuse(tooLarge);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) break;
      size += value.byteLength;
      if (size > cap) throw refuse(tooLarge);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

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
export function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!IMF_FIXDATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlant(value: unknown): value is { name: string; tag?: string } {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    (value.tag === undefined || typeof value.tag === 'string')
  );
}

function isErrorBody(value: unknown): value is ErrorBody {
  return isRecord(value) && Number.isInteger(value.error) && typeof value.message === 'string';
}
