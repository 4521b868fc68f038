/**
 * An RFC 6750 `b64token` (https://www.rfc-editor.org/rfc/rfc6750#section-2.1): letters, digits
 * and `-._~+/`, then optional `=` padding. A token outside it can never be presented in an
 * `Authorization: Bearer` header.
 */
export const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

// The credentials of RFC 6750 section 2.1: the scheme, case-insensitive, then one or more
// spaces, then a b64token: \w is exactly its letters, digits and "_".
const BEARER = /^bearer +[\w\-.~+/]+=*$/i;

/**
 * The bearer token of an `Authorization` header value, or `undefined` when the header is
 * missing, uses another scheme or is malformed.
 */
export function bearerToken(authorization: string | null): string | undefined {
  // A test and a slice rather than a match: past "bearer " only spaces precede the token, and
  // a b64token has none in it.
  return authorization !== null && BEARER.test(authorization)
    ? authorization.slice(7).trimStart()
    : undefined;
}
