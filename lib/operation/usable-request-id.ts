// 1-200 visible ASCII characters: no control character or kilobytes of text reach a log line or
// a header.
const USABLE_ID = /^[\x21-\x7e]{1,200}$/;

/** Whether a client's `X-Request-Id` can be handed on as it is. */
export function isUsableRequestId(id: string): boolean {
  return USABLE_ID.test(id);
}

/** The id when it is usable, else `undefined`, as for a request that sent none. */
export function usableRequestId(id: string | undefined): string | undefined {
  return id !== undefined && USABLE_ID.test(id) ? id : undefined;
}
