/**
 * The path of a full URL or an origin-form target (`/plants?x=1` → `/plants`), as a `Request` or
 * an HTTP server hands it over: a slice, not a `URL` object per request.
 */
export function pathOf(url: string): string {
  // An origin-form target is a path already; a full URL's path starts after its authority.
  const start = url.charCodeAt(0) === 47 /* '/' */ ? 0 : url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  const fragment = url.indexOf('#', start);
  const end = Math.min(query === -1 ? url.length : query, fragment === -1 ? url.length : fragment);
  return start === 0 && end === url.length ? url : url.slice(start, end);
}
