/** A subdomain pattern, `scheme://*.domain[:port]`, split where a request's `Origin` must match. */
export interface OriginPattern {
  /** The scheme and its slashes: `https://`. */
  readonly scheme: string;
  /** The domain and port after the wildcard, with the dot before it: `.example.com:8443`. */
  readonly suffix: string;
}

export interface AllowedOrigins {
  readonly exact: readonly string[];
  readonly patterns: readonly OriginPattern[];
}

/** The label the wildcard is replaced by while a pattern is parsed as a URL. */
const PLACEHOLDER = 'a';
/** One or more host labels as a browser serializes them (lower-case ASCII, IDN as punycode). */
const LABELS = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
/** A pattern's wildcard: the first label, right after the scheme. */
const WILDCARD_START = /^https?:\/\/\*\./;
const EXAMPLE = 'such as https://app.example.com';

/**
 * What is wrong with a configured origin, or `undefined`: one not written exactly as a browser
 * sends `Origin` would never match.
 */
export function originProblem(origin: unknown): string | undefined {
  return typeof origin === 'string' ? parseOrigin(origin).problem : notAString(origin);
}

function notAString(origin: unknown): string {
  return `an origin is a string ${EXAMPLE}, got ${origin === null ? 'null' : typeof origin}`;
}

/** Sorts allowed origins into exact ones and patterns; a `TypeError` names the first bad one. */
export function allowedOrigins(origins: readonly unknown[]): AllowedOrigins {
  const exact: string[] = [];
  const patterns: OriginPattern[] = [];
  for (const origin of origins) {
    const parsed: ParsedOrigin =
      typeof origin === 'string' ? parseOrigin(origin) : { problem: notAString(origin) };
    if (parsed.problem !== undefined) throw new TypeError(`cors.origins: ${parsed.problem}`);
    if (parsed.pattern === undefined) exact.push(origin as string);
    else patterns.push(parsed.pattern);
  }
  return { exact, patterns };
}

/**
 * Whether an `Origin` is the pattern's scheme, plain host labels, then its domain and port, so
 * `https://*.example.com` never takes `https://evil-example.com`. Nothing is compiled from
 * configured text.
 */
export function matchesPattern(origin: string, pattern: OriginPattern): boolean {
  const { scheme, suffix } = pattern;
  return (
    origin.length > scheme.length + suffix.length &&
    origin.startsWith(scheme) &&
    origin.endsWith(suffix) &&
    LABELS.test(origin.slice(scheme.length, origin.length - suffix.length))
  );
}

interface ParsedOrigin {
  readonly problem?: string;
  readonly pattern?: OriginPattern;
}

function parseOrigin(origin: string): ParsedOrigin {
  const quoted = JSON.stringify(origin);
  if (origin.trim() === '') return { problem: `an empty origin: write one ${EXAMPLE}` };
  if (origin === '*') return { problem: "'*' stands alone, not in a list" };
  if (!origin.includes('://')) {
    return {
      problem: `${quoted} is not an http(s) origin: a bare host needs its scheme, ${EXAMPLE}`,
    };
  }
  const isPattern = origin.includes('*');
  if (
    isPattern &&
    (!WILDCARD_START.test(origin) || origin.lastIndexOf('*') !== origin.indexOf('*'))
  ) {
    return {
      problem: `${quoted}: a wildcard stands only for the leading labels of a host, as in https://*.example.com`,
    };
  }
  const written = isPattern ? origin.replace('*', PLACEHOLDER) : origin;
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    return { problem: `${quoted} is not an http(s) origin ${EXAMPLE}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: `${quoted} is not an http(s) origin ${EXAMPLE}` };
  }
  // What a browser would send, with the wildcard put back for a pattern.
  const canonical = isPattern ? url.origin.replace(`//${PLACEHOLDER}.`, '//*.') : url.origin;
  const what =
    url.username !== '' || url.password !== ''
      ? 'has user info'
      : url.search !== '' || url.hash !== '' || /[?#]/.test(written)
        ? 'has a query or fragment'
        : url.pathname !== '/'
          ? 'has a path'
          : written.endsWith('/')
            ? 'has a trailing slash'
            : undefined;
  if (what !== undefined || url.origin !== written) {
    return {
      problem: `${quoted}${what === undefined ? '' : ` ${what}`}: an origin must be written as a browser sends it: ${canonical} (scheme, lower-case host with IDN in punycode, a port only when not the default; no path, no trailing slash)`,
    };
  }
  if (!isPattern) return {};
  const scheme = `${url.protocol}//`;
  const suffix = url.origin.slice(scheme.length + PLACEHOLDER.length);
  if (!LABELS.test(url.hostname.slice(PLACEHOLDER.length + 1))) {
    return {
      problem: `${quoted}: the domain after the wildcard must be a host name, as in https://*.example.com`,
    };
  }
  return { pattern: { scheme, suffix } };
}
