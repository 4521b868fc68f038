/**
 * The settings an operator tunes: the limits, the log, the admin listener, and the check that
 * every `PLANT_STORE_*` variable is one the server knows (a mistyped one is never ignored).
 *
 * @module
 */

import { nearestName } from '../options/check-option-names.ts';
import { integerSetting, type Parsed, type SettingsEnv } from './setting-values.ts';

/** The standalone server's keep-alive timeout: longer than the 60 s idle timeout of common load balancers. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The limits, each from its `PLANT_STORE_*` setting; `undefined` keeps the library's default. */
export interface Limits {
  /** `PLANT_STORE_MAX_BODY_BYTES`: the largest body accepted. */
  readonly maxBodyBytes: number | undefined;
  /** `PLANT_STORE_TIMEOUT_MS`: the deadline of one create. */
  readonly timeoutMs: number | undefined;
  /** `PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS`: how long an idle connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** `PLANT_STORE_HEADERS_TIMEOUT_MS`: how long a client has to send its headers. */
  readonly headersTimeoutMs: number | undefined;
  /** `PLANT_STORE_REQUEST_TIMEOUT_MS`: how long a client has to send its whole request. */
  readonly requestTimeoutMs: number | undefined;
  /** `PLANT_STORE_PG_POOL_MAX`: the most PostgreSQL connections. */
  readonly pgPoolMax: number | undefined;
  /** `PLANT_STORE_MAX_PLANTS`: the most plants the memory store keeps. */
  readonly maxPlants: number | undefined;
  /** `PLANT_STORE_MAX_CONNECTIONS`: the most connections open at once. */
  readonly maxConnections: number | undefined;
}

/** How the server logs (`PLANT_STORE_LOG`). */
export interface LogSettings {
  /** `json`, `text`, `off`, or `auto`: JSON unless stdout is a terminal. */
  readonly format: 'json' | 'text' | 'off' | 'auto';
  /** The least severe lines written: `info` (every request), `warn` or `error`. */
  readonly level: 'info' | 'warn' | 'error';
}

/** Where the admin listener listens (`PLANT_STORE_ADMIN_PORT`, `PLANT_STORE_ADMIN_HOST`). */
export interface AdminSettings {
  /** The port; `0` picks a free one. */
  readonly port: number;
  /** The interface. */
  readonly host: string;
}

/** Every setting the server reads: an unknown `PLANT_STORE_*` variable is a bad setting. */
export const KNOWN_SETTINGS: readonly string[] = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'PLANT_STORE_TOKENS',
  'PLANT_STORE_JWKS_URL',
  'PLANT_STORE_JWT_ISSUER',
  'PLANT_STORE_JWT_AUDIENCE',
  'PLANT_STORE_JWT_ALGORITHMS',
  'PLANT_STORE_CORS_ORIGINS',
  'PLANT_STORE_PUBLIC_URL',
  'PLANT_STORE_BASE_PATH',
  'PLANT_STORE_TRUST_PROXY',
  'PLANT_STORE_LOG',
  'PLANT_STORE_ADMIN_PORT',
  'PLANT_STORE_ADMIN_HOST',
  'PLANT_STORE_MAX_BODY_BYTES',
  'PLANT_STORE_TIMEOUT_MS',
  'PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS',
  'PLANT_STORE_HEADERS_TIMEOUT_MS',
  'PLANT_STORE_REQUEST_TIMEOUT_MS',
  'PLANT_STORE_PG_POOL_MAX',
  'PLANT_STORE_MAX_PLANTS',
  'PLANT_STORE_MAX_CONNECTIONS',
];

/** The largest timer `setTimeout` takes: 2^31 - 1 ms. */
const MAX_MS = 2_147_483_647;

/** An unknown `PLANT_STORE_*` variable, as an error naming the nearest known one. */
export function unknownSetting(env: SettingsEnv): string | undefined {
  for (const name of Object.keys(env)) {
    if (!name.startsWith('PLANT_STORE_') || KNOWN_SETTINGS.includes(name)) continue;
    const nearest = nearestName(name, KNOWN_SETTINGS);
    return `${name} is not a setting plant-store knows; did you mean ${nearest}? (plant-store --help lists them)`;
  }
  return undefined;
}

/** Parses the limits. */
export function parseLimits(env: SettingsEnv): Parsed<Limits> {
  const read = (name: string, fallback: number | undefined, min: number, max = MAX_MS) =>
    integerSetting(env, name, fallback, min, max);
  const fields = {
    maxBodyBytes: read('PLANT_STORE_MAX_BODY_BYTES', undefined, 1, Number.MAX_SAFE_INTEGER),
    timeoutMs: read('PLANT_STORE_TIMEOUT_MS', undefined, 1),
    // Every timeout is at least 1 ms: node reads 0 as "never", which would turn a limit off.
    keepAliveTimeoutMs: read('PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_KEEP_ALIVE_TIMEOUT_MS, 1),
    headersTimeoutMs: read('PLANT_STORE_HEADERS_TIMEOUT_MS', undefined, 1),
    requestTimeoutMs: read('PLANT_STORE_REQUEST_TIMEOUT_MS', undefined, 1),
    pgPoolMax: read('PLANT_STORE_PG_POOL_MAX', undefined, 1, 10_000),
    maxPlants: read('PLANT_STORE_MAX_PLANTS', undefined, 1, Number.MAX_SAFE_INTEGER),
    maxConnections: read('PLANT_STORE_MAX_CONNECTIONS', undefined, 1, 1_000_000),
  };
  const values: Record<string, number | undefined> = {};
  for (const [field, parsed] of Object.entries(fields)) {
    if ('error' in parsed) return parsed;
    values[field] = parsed.value;
  }
  const limits = values as unknown as Limits;
  const { headersTimeoutMs = 10_000, requestTimeoutMs = 30_000 } = limits;
  if (headersTimeoutMs > requestTimeoutMs) {
    return {
      error: 'PLANT_STORE_HEADERS_TIMEOUT_MS must not exceed PLANT_STORE_REQUEST_TIMEOUT_MS',
    };
  }
  return { value: limits };
}

/**
 * Parses `PLANT_STORE_LOG`: comma-separated words, a format (`json`, `text`, `off`) and a level
 * (`info`, `warn`, `error`), each at most once, in any order; unset, JSON unless stdout is a
 * terminal, at `info`.
 */
export function parseLog(raw: string | undefined): Parsed<LogSettings> {
  let format: LogSettings['format'] = 'auto';
  let level: LogSettings['level'] = 'info';
  for (const word of (raw ?? '').split(',').map((entry) => entry.trim().toLowerCase())) {
    if (word === '') continue;
    if (word === 'json' || word === 'text' || word === 'off') format = word;
    else if (word === 'info' || word === 'warn' || word === 'error') level = word;
    else {
      return {
        error: `PLANT_STORE_LOG takes json, text or off and a level, info, warn or error (such as json,warn), got ${JSON.stringify(raw)}`,
      };
    }
  }
  return { value: { format, level } };
}

/** Parses the admin listener's settings: off unless `PLANT_STORE_ADMIN_PORT` is set. */
export function parseAdmin(env: SettingsEnv): Parsed<AdminSettings | undefined> {
  const { PLANT_STORE_ADMIN_HOST: host } = env;
  const port = integerSetting(env, 'PLANT_STORE_ADMIN_PORT', undefined, 0, 65_535);
  if ('error' in port) return port;
  if (port.value === undefined) {
    if (host !== undefined) return { error: 'PLANT_STORE_ADMIN_HOST needs PLANT_STORE_ADMIN_PORT' };
    return { value: undefined };
  }
  if (host !== undefined && host.trim() === '') {
    return { error: 'PLANT_STORE_ADMIN_HOST must not be empty' };
  }
  return { value: { port: port.value, host: host ?? '127.0.0.1' } };
}
