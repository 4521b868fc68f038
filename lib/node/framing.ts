import { type ErrorReply, errorReply } from '../errors.ts';

/**
 * The answer to a `Transfer-Encoding` (its lines joined) the server cannot read (RFC 9112 section
 * 6.1): only `chunked`, once and last, is read; another last coding is a `400`, one before a `501`.
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
