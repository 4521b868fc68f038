/**
 * One way to echo a URL the host configured (in a start-up line, a thrown message, a log line):
 * its user name, password, query and fragment may carry secrets (a password, an API key in
 * `?key=`), so they never leave as written.
 *
 * @module
 */

/**
 * A URL without its secrets: the user name and password become `***@`, the query `?***`, and the
 * fragment `#***`; the scheme, host, port and path stay, enough to tell which server is meant.
 * A string that is not a URL gives `(not a URL)`, since it could be anything.
 *
 * @param url The URL as the host gave it.
 * @returns The text that may be echoed.
 * @example
 * ```ts
 * redactUrl('https://user:pw@id.example.com/jwks.json?key=s3cret');
 * // 'https://***@id.example.com/jwks.json?***'
 * ```
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a URL)';
  }
  const userinfo = parsed.username !== '' || parsed.password !== '' ? '***@' : '';
  const authority = parsed.host === '' ? '' : `//${userinfo}${parsed.host}`;
  const query = parsed.search === '' ? '' : '?***';
  const fragment = parsed.hash === '' ? '' : '#***';
  return `${parsed.protocol}${authority}${parsed.pathname}${query}${fragment}`;
}
