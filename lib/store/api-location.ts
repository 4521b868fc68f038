// Where the API lives: its base path, and the public URL its OpenAPI document names when set
// (else the document's own `.`). No request header enters the document, so a shared cache cannot
// hand anyone a copy that sends their token elsewhere.

const BASE_PATH = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;
// However spelled: no request path holds a `.` or `..` segment once parsed.
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/** `basePath` is `''` for the root; `publicUrl` has no trailing slash. */
export interface ApiLocation {
  readonly basePath: string;
  readonly publicUrl: string | undefined;
}

/** The `basePath` and `publicUrl` options, checked (a `TypeError`) and resolved. */
export function apiLocationOf(basePath: unknown, publicUrl: unknown): ApiLocation {
  let fixed: string | undefined;
  // Unset, the base path is the public URL's path, else the root.
  let base = basePath === undefined ? '/' : basePath;
  if (publicUrl !== undefined) {
    refuse('publicUrl', publicUrlProblem(publicUrl));
    const parsed = new URL(publicUrl as string);
    const path = parsed.pathname.replace(/\/$/, '');
    fixed = parsed.origin + path;
    if (basePath === undefined) base = path || '/';
  }
  // The root is spelled `/`; an empty string is more likely a setting left blank.
  if (base !== '/') refuse('basePath', basePathProblem(base));
  return { basePath: base === '/' ? '' : (base as string), publicUrl: fixed };
}

/** Throws the option's `TypeError` when it has a problem. */
export function refuse(name: string, problem: string | undefined): void {
  if (problem !== undefined) throw new TypeError(`${name} ${problem}`);
}

/** What a store given the retired `trustProxy` option is told. */
export const TRUST_PROXY_RETIRED =
  "trustProxy is retired: the OpenAPI document's server is relative now, right behind any " +
  'proxy; set publicUrl to name an absolute one';

/** What is wrong with a base path other than the root, or `undefined`. */
export function basePathProblem(path: unknown): string | undefined {
  return typeof path === 'string' && isBasePath(path)
    ? undefined
    : `must be a URL path such as /api (a leading slash; no trailing slash, query, or . or .. segment), got ${JSON.stringify(path)}`;
}

function isBasePath(path: string): boolean {
  return BASE_PATH.test(path) && !path.includes('//') && !DOT_SEGMENT.test(path);
}

/** What is wrong with a public URL: absolute http(s), no credentials, query or fragment. */
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
