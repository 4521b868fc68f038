/** An RFC 6750 `b64token` (https://www.rfc-editor.org/rfc/rfc6750#section-2.1). */
export const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** `B64TOKEN` in words, for the messages that refuse a token. */
export const B64TOKEN_RULE = '(RFC 6750 b64token: letters, digits, -._~+/, then optional =)';

// The scheme is case-insensitive; `\w` is exactly the b64token's letters, digits and "_".
const BEARER = /^bearer +[\w\-.~+/]+=*$/i;

/** The token of an `Authorization` value; `undefined` if absent, not `Bearer` or malformed. */
export function bearerToken(authorization: string | null): string | undefined {
  return authorization !== null && BEARER.test(authorization)
    ? authorization.slice(7).trimStart()
    : undefined;
}
