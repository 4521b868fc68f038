/**
 * CORS for a plant store (https://fetch.spec.whatwg.org/#http-cors-protocol), on plain values so
 * that the web-standard front and the Node fast path share it: a preflight from an allowed origin
 * is answered here, and every other reply gets the headers its origin earns. A store without the
 * `cors` option never reaches this file's code.
 *
 * @module
 */

import { JSON_HEADERS } from '../errors.ts';
import type { CreatePlant } from '../operation/create-plant.ts';
import type { Reply } from '../operation/plain-request.ts';
import type { CorsOptions } from '../types.ts';

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

/** A store's CORS policy: which origins it allows and the headers it answers them with. */
export interface CorsPolicy {
  /**
   * The headers for a response to a request from `origin` (the `Origin` header, `null` when
   * absent): the CORS headers for an allowed origin, else `Vary: Origin` alone, since the
   * answer still depends on the origin (https://fetch.spec.whatwg.org/#cors-protocol-and-http-caches).
   */
  headersFor(origin: string | null): HeaderMap;
  /** The `204` answer to a preflight from `origin`, or `undefined` when it is not allowed. */
  preflight(origin: string | null): Reply | undefined;
}

/**
 * Checks the `cors` option and builds its policy; every header set is built here, once.
 *
 * @param options The store's `cors` option.
 * @returns The policy.
 * @throws {TypeError} When `origins` is neither `'*'` nor a non-empty list of origins written as
 *   a browser sends them, or `maxAge` is not an integer in 0-86400.
 */
export function createCorsPolicy(options: CorsOptions): CorsPolicy {
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
  return {
    headersFor(origin) {
      if (origin === null) return vary;
      return any ?? allowed.get(origin) ?? vary;
    },
    preflight(origin) {
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
    },
  };
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
 *
 * @param policy The store's policy.
 * @param createPlant The operation.
 * @returns The operation with CORS.
 */
export function withCors(policy: CorsPolicy, createPlant: CreatePlant): CreatePlant {
  return (input, answer) => {
    const origin = input.origin ?? null;
    if (input.method === 'OPTIONS' && input.preflightMethod != null) {
      const preflight = policy.preflight(origin);
      if (preflight !== undefined) {
        answer(preflight);
        return;
      }
    }
    const headers = policy.headersFor(origin);
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
