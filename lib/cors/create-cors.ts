/**
 * CORS for a plant store (https://fetch.spec.whatwg.org/#http-cors-protocol), on plain values so
 * that the web-standard front and the Node fast path share it: a preflight from an allowed origin
 * is answered here, and every other reply gets the headers its origin earns. It lives on its own
 * subpath, `plant-store/cors`, so that a host that answers CORS with its own middleware ships
 * none of it.
 *
 * @module
 */

import { JSON_HEADERS } from '../errors.ts';
import type { CreatePlant } from '../operation/create-plant.ts';
import type { Reply } from '../operation/plain-request.ts';
import { type CorsPolicy, registerCors } from '../store/cors-policy.ts';
import type { Cors } from '../types.ts';

/**
 * Options of `createCors`: which origins may call the API from a browser page.
 */
export interface CorsOptions {
  /**
   * The allowed origins, each exactly as a browser sends it in `Origin` (scheme, host and a
   * port other than the scheme's default: `https://app.example.com`, `http://localhost:5173`),
   * or `'*'` for every origin. No path, no trailing slash; at least one.
   */
  readonly origins: readonly string[] | '*';
  /**
   * How long, in seconds, a browser may reuse a preflight's answer (`Access-Control-Max-Age`),
   * an integer in 0-86400 (browsers cap it: Chromium at 7200).
   * @default 600
   */
  readonly maxAge?: number | undefined;
}

/** The default of `cors.maxAge`, in seconds. */
export const DEFAULT_CORS_MAX_AGE = 600;
// Firefox's cap; Chromium's is 7200. More would only pretend.
const MAX_CORS_MAX_AGE = 86_400;

/**
 * The request headers the API reads, listed one by one: a `*` would not cover `Authorization`
 * (https://fetch.spec.whatwg.org/#cors-non-wildcard-request-header-name).
 */
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';
/** The response headers a page may read beyond the safelisted ones. */
const EXPOSE_HEADERS = 'WWW-Authenticate, X-Request-Id';

type HeaderMap = Readonly<Record<string, string>>;

/**
 * Creates the CORS policy a store takes as its `cors` option: a preflight (`OPTIONS` with
 * `Origin` and `Access-Control-Request-Method`) from an allowed origin gets `204` without a
 * token, with `Access-Control-Allow-Methods: POST`, `Access-Control-Allow-Headers:
 * Authorization, Content-Type, X-Request-Id` and `Access-Control-Max-Age`; every response to an
 * allowed origin, errors included, carries `Access-Control-Allow-Origin`, `Vary: Origin` and
 * `Access-Control-Expose-Headers: WWW-Authenticate, X-Request-Id`. A disallowed origin gets no
 * CORS header, and its preflight is a plain `OPTIONS` (`405`). Every header set is built here,
 * once. Where the host has CORS middleware of its own, prefer it and leave the store's off.
 *
 * @param options The allowed origins and the preflight's `maxAge`.
 * @returns The policy, for `createPlantStore({ cors })`.
 * @throws {TypeError} When `origins` is neither `'*'` nor a non-empty list of origins written as
 *   a browser sends them, or `maxAge` is not an integer in 0-86400.
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import { createCors } from 'plant-store/cors';
 *
 * const store = createPlantStore({
 *   verifier: createStaticTokenVerifier(['s3cr3t']),
 *   cors: createCors({ origins: ['https://app.example.com'] }),
 * });
 * ```
 */
export function createCors(options: CorsOptions): Cors {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError("cors must be an object such as { origins: ['https://app.example.com'] }");
  }
  const { origins, maxAge = DEFAULT_CORS_MAX_AGE } = options;
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > MAX_CORS_MAX_AGE) {
    throw new TypeError(
      `cors.maxAge must be an integer number of seconds in 0-${MAX_CORS_MAX_AGE}`,
    );
  }
  const vary: HeaderMap = Object.freeze({ vary: 'Origin' });
  const allowed = new Map<string, HeaderMap>();
  const headersOf = (allowOrigin: string): HeaderMap =>
    Object.freeze({
      'access-control-allow-origin': allowOrigin,
      'access-control-expose-headers': EXPOSE_HEADERS,
      vary: 'Origin',
    });
  let any: HeaderMap | undefined;
  if (origins === '*') {
    any = headersOf('*');
  } else {
    if (!Array.isArray(origins) || origins.length === 0) {
      throw new TypeError("cors.origins must be '*' or a non-empty list of origins");
    }
    for (const origin of origins) allowed.set(checkOrigin(origin), headersOf(origin));
  }
  const preflights = new Map<string, Reply>();
  const headersFor = (origin: string | null): HeaderMap => {
    if (origin === null) return vary;
    return any ?? allowed.get(origin) ?? vary;
  };
  const preflight = (origin: string | null): Reply | undefined => {
    if (origin === null) return undefined;
    const headers = any ?? allowed.get(origin);
    if (headers === undefined) return undefined;
    let reply = preflights.get(origin);
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
      // With '*' any origin may ask: keep a bounded few, never one per stranger.
      if (any === undefined || preflights.size < 64) preflights.set(origin, reply);
    }
    return reply;
  };
  const policy: CorsPolicy = {
    headersFor,
    wrap: (createPlant) => withCors(headersFor, preflight, createPlant),
  };
  return registerCors(policy);
}

/**
 * What is wrong with an allowed origin, or `undefined` when it is written exactly as a browser
 * sends it in `Origin`: otherwise it would never match.
 *
 * @param origin The origin as configured.
 * @returns A short reason, for a `TypeError` or a settings error.
 */
export function originProblem(origin: unknown): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = typeof origin === 'string' ? new URL(origin) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return `${JSON.stringify(origin)} is not an http(s) origin such as https://app.example.com`;
  }
  if (parsed.origin !== origin) {
    return `${JSON.stringify(origin)} must be written as a browser sends it: ${parsed.origin} (no path, no trailing slash, lower case, no default port)`;
  }
  return undefined;
}

function checkOrigin(origin: unknown): string {
  const problem = originProblem(origin);
  if (problem !== undefined) throw new TypeError(`cors.origins: ${problem}`);
  return origin as string;
}

/**
 * Wraps a store's create operation with its CORS policy: a preflight from an allowed origin is
 * answered `204` before any check (a preflight never carries a token), and every other reply
 * gets the headers its origin earns. A preflight from an origin not allowed is a plain `OPTIONS`:
 * `405`, with no CORS header.
 */
function withCors(
  headersFor: (origin: string | null) => HeaderMap,
  preflight: (origin: string | null) => Reply | undefined,
  createPlant: CreatePlant,
): CreatePlant {
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
    createPlant(input, (reply) => answer(withHeaders(reply, headers)));
  };
}

/**
 * The JSON content type merged with each set of CORS headers, made once: every `200` carries
 * `JSON_HEADERS`, so a create merges nothing. One entry per allowed origin, plus `Vary` alone.
 */
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
