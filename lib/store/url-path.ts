/**
 * The path of a web request's URL without a `URL` object: what the store's and the reference
 * page's routing read on every request.
 *
 * @module
 */

/**
 * The path of a request's URL, which `Request` has already parsed and normalised
 * (`http://host/plants?x=1` → `/plants`): a slice rather than a `URL` object per request.
 */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  const fragment = url.indexOf('#', start);
  const end = Math.min(query === -1 ? url.length : query, fragment === -1 ? url.length : fragment);
  return url.slice(start, end);
}
