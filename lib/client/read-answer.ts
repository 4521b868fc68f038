import type { Plant } from '../types.ts';
import { abortable } from './abortable.ts';
import { PlantClientError } from './plant-client-error.ts';

/** The most of an answer read: a Plant echoes the request, so twice its size if that is more. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The Plant of the contract's `200`, which is the plant sent: stored as sent, or a replay. Any
 * other answer throws a `PlantClientError`: an error status with the Error body `ERR_STATUS`, the
 * rest `ERR_UNEXPECTED_RESPONSE`.
 */
export async function readAnswer(
  response: Response,
  sent: Plant,
  sentBytes: number,
  signal: AbortSignal,
): Promise<Plant> {
  const { status, headers } = response;
  const answer = {
    status,
    requestId: headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterSeconds(headers.get('retry-after')),
  };
  const refuse = (why: string) =>
    new PlantClientError(
      'ERR_UNEXPECTED_RESPONSE',
      `the answer to POST /plants (${status}) ${why}`,
      answer,
    );
  const cap = Math.max(MAX_ANSWER_BYTES, 2 * sentBytes);
  const bytes = await readCapped(response, cap, signal);
  if (bytes === undefined) throw refuse(`is over ${cap} bytes`);
  // No redirect is followed: a create answered elsewhere is one no store saw. A browser shows
  // the page a redirect as status 0, without its Location.
  if (response.type === 'opaqueredirect' || (status > 299 && status < 400)) {
    throw refuse(`redirects to ${headers.get('location') ?? 'a URL not shown'}: fix baseUrl`);
  }
  if (status !== 200 && status < 400) throw refuse("is not the contract's 200");
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    throw refuse('is not UTF-8 JSON');
  }
  const { name, tag, error, message } = (value ?? {}) as Record<string, unknown>;
  if (status === 200) {
    // Named, never quoted: a plant's text may be the caller's secret.
    const differs = name !== sent.name ? 'name' : tag !== sent.tag ? 'tag' : undefined;
    if (differs !== undefined) throw refuse(`is not the plant sent: its ${differs} differs`);
    return sent;
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

/** IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, and RFC 850's, `Sunday, 06-Nov-94 08:49:37 GMT`. */
const HTTP_DATE =
  /^[A-Z][a-z]{2,8}, (\d\d?)[ -]([A-Z][a-z]{2})[ -](\d{4}|\d\d) (\d\d:\d\d:\d\d) GMT$/;
/** C's asctime, `Sun Nov  6 08:49:37 1994`: GMT too, though it does not say so. */
const ASCTIME = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2})  ?(\d\d?) (\d\d:\d\d:\d\d) (\d{4})$/;

/**
 * `Retry-After` in seconds, a date counted from now; `undefined` when absent or unreadable. A
 * date may come in any of RFC 9110's three forms (§5.6.7): checked here, it is handed to
 * `Date.parse` in RFC 5322's order, which engines read alike, not as it came.
 */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // asctime, rewritten in the order of the other two.
  const [, day, month, year = '', time] =
    HTTP_DATE.exec(value.replace(ASCTIME, '$1, $3 $2 $5 $4 GMT')) ?? [];
  if (time === undefined) return undefined;
  // A two-digit year more than 50 years ahead is in the century before.
  const now = new Date().getUTCFullYear();
  const fullYear = year.length > 2 ? year : now + 50 - ((now + 50 - Number(year)) % 100);
  const at = Date.parse(`${day} ${month} ${fullYear} ${time} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
