/**
 * Whether a `Content-Type` value is JSON the store reads: `application/json`, case-insensitive,
 * with any parameters, but a `charset` (quoted or not) only `utf-8`
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
