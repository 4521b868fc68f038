/**
 * Where the API lives: the base path its routes are under, and the server its OpenAPI document
 * names: relative (`/`, or the base path), which every reader resolves against wherever it
 * fetched the document, unless `publicUrl` fixes an absolute one. No request header ever enters
 * the document, so a shared cache cannot hand anyone a copy that sends their token elsewhere.
 *
 * @module
 */

/** A base path: one or more `/segment`s, no trailing slash, no query or fragment. */
const BASE_PATH = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;
/** A `.` or `..` segment, however spelled: no request path ever holds one once parsed. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/** Where a store's routes are, and the server its document names. */
export interface ApiLocation {
  /** The base path the routes are under: `''` for the root, else such as `/api`. */
  readonly basePath: string;
  /** The normalised `publicUrl` (no trailing slash), when it is set. */
  readonly publicUrl: string | undefined;
}

/**
 * Checks and resolves the `basePath` and `publicUrl` options.
 *
 * @throws {TypeError} When one is malformed.
 */
export function apiLocationOf(basePath: unknown, publicUrl: unknown): ApiLocation {
  const fixed = publicUrl === undefined ? undefined : checkPublicUrl(publicUrl);
  const base =
    basePath === undefined ? (fixed === undefined ? '/' : new URL(fixed).pathname) : basePath;
  // The root is spelled `/`; an empty string is more likely a setting left blank.
  if (base === '') checkBasePath(null, 'basePath');
  return {
    basePath: base === '/' ? '' : checkBasePath(base, 'basePath'),
    publicUrl: fixed,
  };
}

/**
 * The server the document names for routes under `base` (a mount path and the base path, `''`
 * for the root).
 */
export function documentServer(location: ApiLocation, base: string): string {
  return location.publicUrl ?? (base || '/');
}

/** What a store given the retired `trustProxy` option is told. */
export const TRUST_PROXY_RETIRED =
  "trustProxy is retired: the OpenAPI document's server is relative now, right behind any " +
  'proxy; set publicUrl to name an absolute one';

/**
 * Checks a base path: `''` (the root) or `/segment`s, with no trailing slash, query, fragment
 * or dot segment.
 *
 * @returns The path.
 * @throws {TypeError} When it is anything else.
 */
export function checkBasePath(path: unknown, name: string): string {
  if (path === '' || (typeof path === 'string' && isBasePath(path))) return path;
  throw new TypeError(
    `${name} must be a URL path such as /api (a leading slash; no trailing slash, query, or . or .. segment), got ${JSON.stringify(path)}`,
  );
}

function isBasePath(path: string): boolean {
  return BASE_PATH.test(path) && !path.includes('//') && !DOT_SEGMENT.test(path);
}

/**
 * What is wrong with a public URL, or `undefined` when it is an absolute http(s) URL with no
 * credentials, query or fragment (a path is fine).
 */
export function publicUrlProblem(url: unknown): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url as string);
  } catch {
    // Said below, as every other problem is.
  }
  if (
    typeof url === 'string' &&
    /^https?:$/.test(parsed?.protocol ?? '') &&
    parsed?.username === '' &&
    parsed.password === '' &&
    parsed.search === '' &&
    parsed.hash === '' &&
    (parsed.pathname === '/' || isBasePath(parsed.pathname.replace(/\/$/, '')))
  ) {
    return undefined;
  }
  return `must be an absolute http(s) URL with no credentials, query or fragment, such as https://api.example.com/v1, got ${JSON.stringify(url)}`;
}

/** The public URL, normalised: no trailing slash (`https://api.example.com/v1`). */
function checkPublicUrl(url: unknown): string {
  const problem = publicUrlProblem(url);
  if (problem !== undefined) throw new TypeError(`publicUrl ${problem}`);
  const parsed = new URL(url as string);
  return parsed.origin + parsed.pathname.replace(/\/$/, '');
}
