/**
 * What a request's `Transfer-Encoding` says of its framing, checked before anything reads the
 * body (RFC 9112 section 6.1): `chunked` once and last is the one framing plant-store reads; a
 * final coding other than `chunked` leaves the body's end unknown (`400`, then close, section
 * 6.3), and another coding before it is one the server does not implement (`501`).
 *
 * @module
 */

import { type ErrorReply, errorReply } from '../errors.ts';

/**
 * The answer to a request whose `Transfer-Encoding` (all its lines, joined with commas) the
 * server cannot read, or `undefined` when it is plain `chunked`.
 */
export function transferCodingProblem(value: string): ErrorReply | undefined {
  // The usual value, without a split.
  if (value === 'chunked') return undefined;
  const codings = value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  const last = codings.pop();
  if (last !== 'chunked' || codings.includes('chunked')) {
    return errorReply(
      'ERR_BAD_REQUEST',
      'the Transfer-Encoding must end in chunked, applied once (RFC 9112 section 6.3)',
    );
  }
  if (codings.length > 0) {
    return errorReply(
      'ERR_NOT_IMPLEMENTED',
      `transfer coding not implemented: ${codings.join(', ')} (only chunked is)`,
    );
  }
  return undefined;
}
