/**
 * The path of a URL without a `URL` object: what every route in plant-store reads, on every
 * request.
 *
 * @module
 */

/**
 * The path of a full URL (`http://host/plants?x=1` → `/plants`), or of a request target in
 * origin form (`/plants?x=1` → `/plants`): a slice rather than a `URL` object per request. The
 * URL is taken as a `Request` or an HTTP server hands it over, already parsed.
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
