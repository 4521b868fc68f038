/**
 * Where the API lives: the base path its routes are under, and the server its OpenAPI document
 * names (fixed by `publicUrl`, told by trusted proxies with `trustProxy`, else the origin the
 * document was fetched from).
 *
 * @module
 */

/** A base path: one or more `/segment`s, no trailing slash, no query or fragment. */
const BASE_PATH = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;
/** A host and port a proxy may name: a DNS name, IPv4 or a bracketed IPv6 literal. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const PROTO = /^https?$/i;

/** Where a store's routes are, and what server its document names for a request. */
export interface ApiLocation {
  /** The base path the routes are under: `''` for the root, else such as `/api`. */
  readonly basePath: string;
  /** The origin of `publicUrl`, when it is set. */
  readonly publicOrigin: string | undefined;
  /**
   * The document's server for a request: the public URL when fixed, else the request's origin
   * (as trusted proxies tell it) followed by `basePath`.
   */
  serverFor(request: Request, origin: string, basePath: string): string;
}

/**
 * Checks and resolves the `basePath`, `publicUrl` and `trustProxy` options.
 *
 * @throws {TypeError} When one is malformed.
 */
export function apiLocationOf(
  basePath: unknown,
  publicUrl: unknown,
  trustProxy: unknown,
): ApiLocation {
  const fixed = publicUrl === undefined ? undefined : checkPublicUrl(publicUrl);
  const hops = trustedHops(trustProxy);
  const base =
    basePath === undefined ? (fixed === undefined ? '/' : new URL(fixed).pathname) : basePath;
  // The root is spelled `/`; an empty string is more likely a setting left blank.
  if (base === '') checkBasePath(null, 'basePath');
  return {
    basePath: base === '/' ? '' : checkBasePath(base, 'basePath'),
    publicOrigin: fixed === undefined ? undefined : new URL(fixed).origin,
    serverFor(request, origin, path) {
      if (fixed !== undefined) return fixed;
      return (hops === 0 ? origin : forwardedOrigin(request, origin, hops)) + path;
    },
  };
}

/**
 * Checks a base path: `''` (the root) or `/segment`s, with no trailing slash, query or fragment.
 *
 * @returns The path.
 * @throws {TypeError} When it is anything else.
 */
export function checkBasePath(path: unknown, name: string): string {
  if (path === '' || (typeof path === 'string' && BASE_PATH.test(path) && !path.includes('//'))) {
    return path;
  }
  throw new TypeError(
    `${name} must be a URL path such as /api (a leading slash, no trailing slash, no query), got ${JSON.stringify(path)}`,
  );
}

/**
 * What is wrong with a public URL, or `undefined` when it is an absolute http(s) URL with no
 * credentials, query or fragment (a path is fine).
 */
export function publicUrlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string') return 'must be a string';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `must be an absolute http(s) URL such as https://api.example.com/v1, got ${JSON.stringify(url)}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `must be an http or https URL, got ${JSON.stringify(url)}`;
  }
  if (
    parsed.username !== '' ||
    parsed.password !== '' ||
    parsed.search !== '' ||
    parsed.hash !== ''
  ) {
    return `must have no credentials, query or fragment, got ${JSON.stringify(url)}`;
  }
  if (parsed.pathname !== '/' && !BASE_PATH.test(parsed.pathname.replace(/\/$/, ''))) {
    return `has a path that is not a plain URL path, got ${JSON.stringify(url)}`;
  }
  return undefined;
}

/** The public URL, normalised: no trailing slash (`https://api.example.com/v1`). */
function checkPublicUrl(url: unknown): string {
  const problem = publicUrlProblem(url);
  if (problem !== undefined) throw new TypeError(`publicUrl ${problem}`);
  const parsed = new URL(url as string);
  return parsed.origin + parsed.pathname.replace(/\/$/, '');
}

/** `trustProxy` as a hop count: `false` 0, `true` 1 (the nearest proxy), or the number given. */
function trustedHops(trustProxy: unknown): number {
  if (trustProxy === undefined || trustProxy === false) return 0;
  if (trustProxy === true) return 1;
  if (Number.isSafeInteger(trustProxy) && (trustProxy as number) > 0) return trustProxy as number;
  throw new TypeError(
    `trustProxy must be true, false or a positive number of proxy hops, got ${String(trustProxy)}`,
  );
}

/**
 * The origin as the trusted proxies tell it: `Forwarded` (RFC 7239) when present, else
 * `X-Forwarded-Proto` and `X-Forwarded-Host`. Each list is read at the entry the `hops`-th proxy
 * from this server added (the leftmost, when a proxy replaced the list rather than appending to
 * it); a value that is no http(s) scheme or no plain host is ignored, so a client's header can
 * never make the document name a malformed or script-bearing URL.
 */
function forwardedOrigin(request: Request, origin: string, hops: number): string {
  const { headers } = request;
  let proto: string | undefined;
  let host: string | undefined;
  const forwarded = headers.get('forwarded');
  if (forwarded !== null) {
    const element = pick(parseForwarded(forwarded) ?? [], hops);
    proto = element?.get('proto');
    host = element?.get('host');
  } else {
    proto = pick(listOf(headers.get('x-forwarded-proto')), hops);
    host = pick(listOf(headers.get('x-forwarded-host')), hops);
  }
  const own = new URL(origin);
  const scheme =
    proto !== undefined && PROTO.test(proto) ? proto.toLowerCase() : own.protocol.slice(0, -1);
  const authority = host !== undefined && validHost(host) ? host : own.host;
  try {
    return new URL(`${scheme}://${authority}`).origin;
  } catch {
    return origin;
  }
}

function validHost(host: string): boolean {
  if (!HOST.test(host)) return false;
  const port = /:([0-9]+)$/.exec(host)?.[1];
  return port === undefined || host.endsWith(']') || Number(port) <= 65_535;
}

/** The entry `hops` from the end of a list, or its first when the list is shorter. */
function pick<T>(list: readonly T[], hops: number): T | undefined {
  return list.length === 0 ? undefined : list[Math.max(0, list.length - hops)];
}

function listOf(header: string | null): string[] {
  if (header === null) return [];
  return header.split(',').map((entry) => entry.trim());
}

/**
 * One `name=value` pair of a `Forwarded` header (RFC 7239 section 4), a token or a quoted
 * string, and what follows it: `;` before the element's next pair, `,` before the next element.
 */
const FORWARDED_PAIR =
  /[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)|"((?:[^"\\]|\\.)*)")[ \t]*([;,]|$)/y;

/**
 * The elements of a `Forwarded` header, each its parameters by lowercase name; `undefined` when
 * it does not parse, so a malformed header decides nothing.
 */
function parseForwarded(header: string): Map<string, string>[] | undefined {
  const elements: Map<string, string>[] = [];
  let element = new Map<string, string>();
  FORWARDED_PAIR.lastIndex = 0;
  while (FORWARDED_PAIR.lastIndex < header.length) {
    const pair = FORWARDED_PAIR.exec(header);
    if (pair === null) return undefined;
    const [, name = '', token, quoted = '', next] = pair;
    element.set(name.toLowerCase(), token ?? quoted.replace(/\\(.)/g, '$1'));
    if (next !== ';') {
      elements.push(element);
      element = new Map();
    }
  }
  return elements;
}
