/**
 * A configured URL as it may be echoed: user info, query and fragment may hold secrets (`?key=`),
 * so they become `***`. Text that is no URL could be anything: `(not a URL)`.
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
