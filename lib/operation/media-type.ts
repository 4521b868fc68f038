/**
 * Whether a `Content-Type` is `application/json` with any parameters, but a `charset` only `utf-8`
 * (https://www.rfc-editor.org/rfc/rfc9110#section-8.3.1).
 */
export function isJsonUtf8(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === 'application/json') return true; // the common case, without a split
  const [essence = '', ...parameters] = contentType.split(';');
  if (essence.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals === -1) {
      if (parameter.trim() !== '') return false; // "application/json;" is fine, "; x" is not
    } else if (parameter.slice(0, equals).trim().toLowerCase() === 'charset') {
      const charset = parameter
        .slice(equals + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (charset.toLowerCase() !== 'utf-8') return false;
    }
  }
  return true;
}

/**
 * Whether a `Content-Encoding` is absent, empty or `identity` (RFC 9110 section 8.4). A coded body
 * is refused, not decoded: its decoded size is not what the limit counted.
 */
export function isIdentityCoding(contentEncoding: string | null): boolean {
  if (contentEncoding === null) return true;
  const coding = contentEncoding.trim().toLowerCase();
  return coding === '' || coding === 'identity';
}
