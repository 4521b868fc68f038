import type { CreatePlantClientOptions } from './types.ts';

/** RFC 6750's `b64token`: anything else would be refused as malformed, or break the header. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** The longest `setTimeout` delay; a larger one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ClientSettings {
  readonly url: string;
  readonly token: string | (() => string | Promise<string>);
  readonly fetch: (request: Request) => Promise<Response>;
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly timeoutMs: number;
}

/** Checks the options and fills in the defaults; a misuse throws a `TypeError` naming the fix. */
export function clientSettings(options: CreatePlantClientOptions): ClientSettings {
  checkNames('createPlantClient', options, ['baseUrl', 'token', 'fetch', 'retry', 'timeoutMs']);
  const { token, fetch } = options;
  if (typeof token !== 'function') checkToken(token, 'createPlantClient: token');
  if (fetch !== undefined && typeof fetch !== 'function') {
    throw new TypeError(`createPlantClient: fetch must be a function, not ${kind(fetch)}`);
  }
  const retry = options.retry === false ? { attempts: 1 } : (options.retry ?? {});
  checkNames('createPlantClient: retry', retry, ['attempts', 'baseDelayMs', 'maxDelayMs']);
  const baseDelayMs = whole('retry.baseDelayMs', retry.baseDelayMs ?? 250, 0);
  return {
    url: plantsUrl(options.baseUrl),
    token,
    // Read when called, so a fetch installed later (a test's stub, a polyfill) is the one used.
    fetch: fetch ?? ((request) => globalThis.fetch(request)),
    attempts: whole('retry.attempts', retry.attempts ?? 5, 1),
    baseDelayMs,
    maxDelayMs: whole('retry.maxDelayMs', retry.maxDelayMs ?? 10_000, baseDelayMs),
    timeoutMs: whole('timeoutMs', options.timeoutMs ?? 30_000, 1),
  };
}

/** The URL of `POST /plants`; the message never echoes `baseUrl`, which may hold a password. */
function plantsUrl(baseUrl: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl as string);
  } catch {
    // Refused below, with the fix.
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    /[?#]/.test(url.href)
  ) {
    throw new TypeError(
      "createPlantClient: baseUrl must be an absolute http(s) URL without credentials, query or fragment (in a page: new URL('/api', location.href))",
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/plants`;
}

function whole(name: string, value: number, min: number): number {
  if (Number.isInteger(value) && value >= min && value <= MAX_TIMER_MS) return value;
  throw new TypeError(
    `createPlantClient: ${name} must be a whole number from ${min} to ${MAX_TIMER_MS}`,
  );
}

export function checkToken(value: unknown, what: string): string {
  if (typeof value === 'string' && B64TOKEN.test(value)) return value;
  throw new TypeError(
    `${what} must be a bearer token (RFC 6750 b64token), not ${typeof value === 'string' ? 'this string' : kind(value)}`,
  );
}

export function checkNames(caller: string, options: object, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${caller}: options must be an object, not ${kind(options)}`);
  }
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new TypeError(`${caller}: unknown option "${name}" (known: ${known.join(', ')})`);
    }
  }
}

/** `typeof`, but `null` for null: what a message says a wrong value is. */
export function kind(value: unknown): string {
  return value === null ? 'null' : typeof value;
}
