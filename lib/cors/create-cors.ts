/**
 * CORS for a plant store (https://fetch.spec.whatwg.org/#http-cors-protocol), on plain values so
 * that the web front and the Node adapter share it.
 * @module
 */

import { JSON_HEADERS } from '../errors.ts';
import type { OpenApiDocument } from '../openapi/openapi-document.ts';
import type { Operation } from '../operation/create-plant.ts';
import type { PlainRequest, Reply } from '../operation/plain-request.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { type CorsPolicy, registerCors } from '../store/cors-policy.ts';
import type { Cors } from '../types.ts';
import { allowedOrigins, matchesPattern } from './allowed-origins.ts';

/** Options of `createCors`: which origins may call the API from a browser page. */
export interface CorsOptions {
  /**
   * The allowed origins: `'*'`; exact origins and patterns written as a browser sends `Origin`
   * (`https://*.example.com` allows its subdomains, never `https://example.com` itself); or a
   * function of the request's `Origin` that returns `true` to allow.
   */
  readonly origins: readonly string[] | '*' | ((origin: string) => boolean);
  /**
   * How long, in seconds (0-86400), a browser may reuse a preflight's answer.
   * @default 600
   */
  readonly maxAge?: number | undefined;
}

/** The default of `CorsOptions.maxAge`, in seconds. */
export const DEFAULT_CORS_MAX_AGE = 600;
// Firefox's cap (Chromium's is 7200): more would only pretend.
const MAX_CORS_MAX_AGE = 86_400;
const KNOWN_OPTIONS = ['origins', 'maxAge'];
/** How many origins allowed by a pattern or a function keep the headers made for them. */
const REMEMBERED_ORIGINS = 64;

/**
 * Listed one by one: a `*` would not cover `Authorization`
 * (https://fetch.spec.whatwg.org/#cors-non-wildcard-request-header-name).
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';
/**
 * The response headers a page may read beyond the safelisted ones: why a token was refused, the
 * request's id, and how long a `503` asks a client to wait.
 */
const EXPOSE_HEADERS = 'WWW-Authenticate, X-Request-Id, Retry-After';

type HeaderMap = Readonly<Record<string, string>>;

/**
 * Creates the CORS policy a store takes as its `cors` option.
 *
 * A preflight from an allowed origin gets `204` without a token, with
 * `Access-Control-Allow-Methods: POST`, the request headers the API reads and
 * `Access-Control-Max-Age`; every response to an allowed origin, errors included, carries
 * `Access-Control-Allow-Origin`, `Vary: Origin` and `Access-Control-Expose-Headers`. A disallowed
 * origin gets no CORS header, and its preflight is a plain `OPTIONS` (`405`). Origins are compared
 * as browsers serialize them (https://html.spec.whatwg.org/#ascii-serialisation-of-an-origin); a
 * function allows only by returning `true`, and one that throws denies. Where the host has CORS
 * middleware of its own, prefer it and leave the store's off.
 *
 * @param options The allowed origins and the preflight's `maxAge`.
 * @returns The policy, for `createPlantStore({ cors })`.
 * @throws {TypeError} When an option's name is unknown, `origins` is not `'*'`, a function or a
 *   non-empty list of origins and patterns written as a browser sends them (the form to write is
 *   shown), or `maxAge` is not an integer in 0-86400.
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createCors } from 'plant-store/cors';
 *
 * const store = createPlantStore({
 *   verifier: createStaticTokenVerifier(['s3cr3t']),
 *   cors: createCors({ origins: ['https://app.example.com', 'https://*.preview.example.com'] }),
 * });
 * ```
 */
export function createCors(options: CorsOptions): Cors {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError("cors must be an object such as { origins: ['https://app.example.com'] }");
  }
  checkOptionNames('createCors', options, KNOWN_OPTIONS);
  const { origins, maxAge = DEFAULT_CORS_MAX_AGE } = options;
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > MAX_CORS_MAX_AGE) {
    throw new TypeError(
      `cors.maxAge must be an integer number of seconds in 0-${MAX_CORS_MAX_AGE}`,
    );
  }
  const allow = allowFor(origins);
  const vary: HeaderMap = Object.freeze({ vary: 'Origin' });
  const headersFor = (origin: string | null): HeaderMap =>
    (origin === null ? undefined : allow(origin)) ?? vary;
  // By header set: one reply per exact origin, one for '*', none kept for a stranger.
  const preflights = new WeakMap<HeaderMap, Reply>();
  const preflight = (origin: string | null): Reply | undefined => {
    const headers = origin === null ? undefined : allow(origin);
    if (headers === undefined) return undefined;
    let reply = preflights.get(headers);
    if (reply === undefined) {
      reply = {
        status: 204,
        headers: {
          ...headers,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': String(maxAge),
        },
        body: '',
      };
      preflights.set(headers, reply);
    }
    return reply;
  };
  const policy: CorsPolicy = {
    headersFor,
    wrap: (operation) => withCors(headersFor, preflight, operation),
    describe: describeCors,
  };
  return registerCors(policy);
}

/** The headers an allowed `Origin` earns, else `undefined`; each set is made once. */
function allowFor(origins: CorsOptions['origins']): (origin: string) => HeaderMap | undefined {
  if (origins === '*') {
    const any = headersOf('*');
    return () => any;
  }
  const remembered = new Map<string, HeaderMap>();
  const headersOfAllowed = (origin: string): HeaderMap => {
    let headers = remembered.get(origin);
    if (headers === undefined) {
      headers = headersOf(origin);
      if (remembered.size < REMEMBERED_ORIGINS) remembered.set(origin, headers);
    }
    return headers;
  };
  if (typeof origins === 'function') {
    return (origin) => (allowedBy(origins, origin) ? headersOfAllowed(origin) : undefined);
  }
  if (!Array.isArray(origins) || origins.length === 0) {
    throw new TypeError(
      "cors.origins must be '*', a non-empty list of origins or a function (origin) => boolean",
    );
  }
  const { exact, patterns } = allowedOrigins(origins);
  const exactly = new Map(exact.map((origin) => [origin, headersOf(origin)]));
  if (patterns.length === 0) return (origin) => exactly.get(origin);
  return (origin) =>
    exactly.get(origin) ??
    (patterns.some((pattern) => matchesPattern(origin, pattern))
      ? headersOfAllowed(origin)
      : undefined);
}

/** Whether the host's function allows an origin: only a `true` does; a throw denies. */
function allowedBy(allows: (origin: string) => boolean, origin: string): boolean {
  try {
    return allows(origin) === true;
  } catch {
    return false;
  }
}

function headersOf(allowOrigin: string): HeaderMap {
  return Object.freeze({
    'access-control-allow-origin': allowOrigin,
    'access-control-expose-headers': EXPOSE_HEADERS,
    vary: 'Origin',
  });
}

const DOCUMENTED_HEADERS = {
  'Access-Control-Allow-Origin': {
    description: 'To an allowed origin: that origin, or *.',
    schema: { type: 'string' },
  },
  'Access-Control-Expose-Headers': {
    description: `To an allowed origin: ${EXPOSE_HEADERS}.`,
    schema: { type: 'string' },
  },
  Vary: { description: 'Origin.', schema: { type: 'string' } },
};

/** The headers declared on the `200` and `401` only, so the reference does not repeat them. */
function describeCors(document: OpenApiDocument): object {
  const described = JSON.parse(JSON.stringify(document)) as {
    info: { description: string };
    paths: { '/plants': { post: { responses: Record<string, { headers?: object }> } } };
  };
  described.info.description +=
    '\n\n**Browsers.** A preflight from an allowed origin gets `204` without a token, and every ' +
    'response to it, errors included, carries `Access-Control-Allow-Origin`, `Vary: Origin` ' +
    `and \`Access-Control-Expose-Headers: ${EXPOSE_HEADERS}\`.`;
  const { responses } = described.paths['/plants'].post;
  for (const status of ['200', '401']) {
    const response = responses[status] as { headers?: object };
    response.headers = { ...response.headers, ...DOCUMENTED_HEADERS };
  }
  return described;
}

/**
 * A preflight from an allowed origin is answered before any check (it never carries a token);
 * one from another origin is a plain `OPTIONS`, `405`.
 */
function withCors(
  headersFor: (origin: string | null) => HeaderMap,
  preflight: (origin: string | null) => Reply | undefined,
  operation: Operation,
): (input: PlainRequest, answer: (reply: Reply) => void) => void {
  return (input, answer) => {
    const origin = input.origin ?? null;
    if (input.method === 'OPTIONS' && input.preflightMethod != null) {
      const reply = preflight(origin);
      if (reply !== undefined) {
        answer(reply);
        return;
      }
    }
    const headers = headersFor(origin);
    operation(input, (reply) => answer(withHeaders(reply, headers)));
  };
}

/** The JSON content type merged with each CORS header set, made once for every `200`. */
const jsonWith = new WeakMap<HeaderMap, HeaderMap>();

/** A reply with more headers; the reply's own are kept. */
function withHeaders(reply: Reply, headers: HeaderMap): Reply {
  let merged = reply.headers === JSON_HEADERS ? jsonWith.get(headers) : undefined;
  if (merged === undefined) {
    merged = { ...reply.headers, ...headers };
    if (reply.headers === JSON_HEADERS) jsonWith.set(headers, merged);
  }
  return { status: reply.status, headers: merged, body: reply.body };
}
