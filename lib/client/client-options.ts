/**
 * What `createPlantClient` and `createPlant` accept, checked at once: an unknown option name or
 * an option that cannot work is a `TypeError` naming the fix, before anything is sent.
 *
 * @module
 */

import type { RetryOptions } from './types.ts';

/** The option names of `createPlantClient`. */
export const OPTION_NAMES = ['baseUrl', 'token', 'fetch', 'retry', 'timeoutMs'];
const RETRY_NAMES = ['attempts', 'baseDelayMs', 'maxDelayMs'];
/** RFC 6750's `b64token`: anything else would be refused as malformed, or break the header. */
export const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** The longest `setTimeout` delay; a larger one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The defaults of `RetryOptions`. */
export const DEFAULT_RETRY: Required<RetryOptions> = Object.freeze({
  attempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
});
/** The default deadline of one `createPlant`, retries included, in milliseconds. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;

/** The URL of `POST /plants` under `baseUrl`. */
export function plantsUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' && !(baseUrl instanceof URL)) {
    throw new TypeError(
      `createPlantClient: baseUrl must be a string or a URL, not ${kind(baseUrl)}`,
    );
  }
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError(
      "createPlantClient: baseUrl is not an absolute URL; in a page, pass new URL('/api', location.href)",
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`createPlantClient: baseUrl must be http: or https:, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(
      'createPlantClient: baseUrl must not hold credentials; pass the token as the token option',
    );
  }
  if (/[?#]/.test(url.href)) {
    throw new TypeError(
      'createPlantClient: baseUrl must have no query or fragment: /plants is added to its path',
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/plants`;
}

export function checkToken(token: unknown): string | (() => string | Promise<string>) {
  if (typeof token === 'function') return token as () => string | Promise<string>;
  if (typeof token === 'string' && B64TOKEN.test(token)) return token;
  throw new TypeError(
    `createPlantClient: token must be a bearer token (RFC 6750 b64token) or a function handing one over, not ${typeof token === 'string' ? 'this string' : kind(token)}`,
  );
}

export function checkFetch(fetch: unknown): (request: Request) => Promise<Response> {
  if (typeof fetch === 'function') return fetch as (request: Request) => Promise<Response>;
  if (fetch !== undefined) {
    throw new TypeError(`createPlantClient: fetch must be a function, not ${kind(fetch)}`);
  }
  if (typeof globalThis.fetch !== 'function') {
    throw new TypeError('createPlantClient: this runtime has no global fetch; pass fetch');
  }
  // Read when called, so a fetch installed later (a test's stub, a polyfill) is the one used.
  return (request) => globalThis.fetch(request);
}

export function checkRetry(retry: unknown): Required<RetryOptions> {
  if (retry === false) return { ...DEFAULT_RETRY, attempts: 1 };
  if (retry === undefined) return DEFAULT_RETRY;
  checkNames('createPlantClient: retry', retry, RETRY_NAMES);
  const given = retry as RetryOptions;
  const checked = {
    attempts: given.attempts ?? DEFAULT_RETRY.attempts,
    baseDelayMs: given.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
  checkNumber('retry.attempts', checked.attempts, 1);
  if (!Number.isInteger(checked.attempts)) {
    throw new TypeError('createPlantClient: retry.attempts must be a whole number');
  }
  checkNumber('retry.baseDelayMs', checked.baseDelayMs, 0);
  checkNumber('retry.maxDelayMs', checked.maxDelayMs, checked.baseDelayMs);
  return checked;
}

export function checkNumber(name: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !(value >= min && value <= MAX_TIMER_MS)) {
    throw new TypeError(
      `createPlantClient: ${name} must be a number from ${min} to ${MAX_TIMER_MS}`,
    );
  }
}

export function checkNames(caller: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${caller}: options must be an object, not ${kind(options)}`);
  }
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const near = known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
    const hint = near === undefined ? '' : `; did you mean "${near}"?`;
    throw new TypeError(`${caller}: unknown option "${name}"${hint} (known: ${known.join(', ')})`);
  }
}

export function isSignal(value: unknown): value is AbortSignal {
  const signal = value as AbortSignal | null;
  return (
    typeof signal === 'object' &&
    signal !== null &&
    typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function'
  );
}

export function kind(value: unknown): string {
  return value === null ? 'null' : typeof value;
}
