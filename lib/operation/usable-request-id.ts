/**
 * Which request ids (`X-Request-Id`) plant-store hands on, in `onError`'s context and in
 * `serve`'s responses and logs.
 *
 * @module
 */

/** 1-200 visible ASCII characters: what a log line and a header can carry as they are. */
const USABLE_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Whether a client's request id can be handed on as it is: 1-200 visible ASCII characters, so
 * that no control character or kilobytes of text reach a log line or a header.
 *
 * @param id The client's `X-Request-Id`.
 * @returns True when the id is usable.
 * @example
 * ```ts
 * isUsableRequestId('req-42'); // true
 * isUsableRequestId('a\nb'); // false
 * ```
 */
export function isUsableRequestId(id: string): boolean {
  return USABLE_ID.test(id);
}

/**
 * A request id as `onError` may receive it: the id itself when it is usable, else `undefined`,
 * as for a request that sent none.
 *
 * @param id The request's `X-Request-Id`, if it has one.
 * @returns The id, or `undefined`.
 * @example
 * ```ts
 * usableRequestId('x'.repeat(12_000)); // undefined
 * ```
 */
export function usableRequestId(id: string | undefined): string | undefined {
  return id !== undefined && USABLE_ID.test(id) ? id : undefined;
}
