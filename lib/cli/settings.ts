/**
 * The standalone server's settings, parsed from the environment without side effects: every
 * setting is read and checked here, so the CLI only acts on the result. Each capability has its
 * own parser (`parseAuth`, `parseStorage`) and its own tagged union, so JWT auth and PostgreSQL
 * storage slot in as new `kind`s without touching the rest.
 *
 * @module
 */

import type { CorsOptions } from '../cors.ts';
import { originProblem } from '../cors/allowed-origins.ts';
import { type AuthSettings, parseAuth } from './auth-settings.ts';
import { type LocationSettings, parseLocation } from './location-settings.ts';
import {
  type AdminSettings,
  type Limits,
  type LogSettings,
  parseAdmin,
  parseLimits,
  parseLog,
  unknownSetting,
} from './operator-settings.ts';
import { hasProtocol, type Parsed, type SettingsEnv } from './setting-values.ts';

export type { AuthSettings, JwtAuthSettings } from './auth-settings.ts';
export type { SettingsEnv } from './setting-values.ts';

/**
 * Where plants are stored.
 * - `memory`: in the process, for as long as it lives.
 * - `postgres`: in PostgreSQL at `url` (`DATABASE_URL`), through `pg`.
 */
export type StorageSettings =
  { readonly kind: 'memory' } | { readonly kind: 'postgres'; readonly url: string };

/** The standalone server's settings. */
export interface Settings {
  /** The port to listen on; `0` picks a free one. */
  readonly port: number;
  /** The interface to listen on. */
  readonly host: string;
  /** How bearer tokens are checked. */
  readonly auth: AuthSettings;
  /** Where plants are stored. */
  readonly storage: StorageSettings;
  /** CORS (`PLANT_STORE_CORS_ORIGINS`): the allowed origins, or `undefined` for off. */
  readonly cors: CorsOptions | undefined;
  /** Where the API lives (`PLANT_STORE_PUBLIC_URL`, `PLANT_STORE_TRUST_PROXY`). */
  readonly location: LocationSettings;
  /** The limits (`PLANT_STORE_MAX_BODY_BYTES` and the rest). */
  readonly limits: Limits;
  /** How the server logs (`PLANT_STORE_LOG`). */
  readonly log: LogSettings;
  /** The admin listener (`PLANT_STORE_ADMIN_PORT`), or `undefined` for none. */
  readonly admin: AdminSettings | undefined;
}

/** What `parseSettings` reports: the settings, or one line saying what is wrong. */
export type ParseSettingsResult =
  | { readonly ok: true; readonly settings: Settings }
  | { readonly ok: false; readonly error: string };

/** The default `PORT`. */
export const DEFAULT_PORT = 3000;
/** The default `HOST`: loopback only, so a fresh start is not reachable from the network. */
export const DEFAULT_HOST = '127.0.0.1';

/**
 * Parses the standalone server's settings from an environment. Pure: it reads only `env`,
 * generates nothing, loads nothing and prints nothing. The README's settings table lists them.
 *
 * `PORT` defaults to 3000 and must be an integer in 0-65535 written in decimal digits; `HOST`
 * defaults to `127.0.0.1` and must not be empty; the auth settings are `auth-settings.ts`'s;
 * `DATABASE_URL`, when set, must be a `postgres://` or `postgresql://` URL: storage is then
 * `postgres`, else `memory`. `PLANT_STORE_CORS_ORIGINS`, when set, is `*` or a comma-separated
 * list of exact origins (`https://app.example.com`) and subdomain patterns
 * (`https://*.example.com`); unset, CORS is off. `PLANT_STORE_PUBLIC_URL` and
 * `PLANT_STORE_TRUST_PROXY` are `location-settings.ts`'s. The limits, the log and
 * the admin listener are `operator-settings.ts`'s, and an unknown `PLANT_STORE_*` variable is an
 * error that suggests the nearest known name. A setting counts as set when it is present, even
 * empty. An error message names the setting and never echoes a token or a database URL (either
 * may hold a secret).
 *
 * @param env The environment, such as `process.env`.
 * @returns The settings, or a one-line error.
 * @example
 * ```ts
 * const result = parseSettings({ PORT: '0', PLANT_STORE_TOKENS: 'alpha, beta' });
 * // result.ok === true; result.settings.auth: { kind: 'tokens', tokens: ['alpha', 'beta'] }
 * ```
 */
export function parseSettings(env: SettingsEnv): ParseSettingsResult {
  const unknown = unknownSetting(env);
  if (unknown !== undefined) return { ok: false, error: unknown };
  const port = parsePort(env.PORT);
  if ('error' in port) return { ok: false, error: port.error };
  const host = parseHost(env.HOST);
  if ('error' in host) return { ok: false, error: host.error };
  const auth = parseAuth(env);
  if ('error' in auth) return { ok: false, error: auth.error };
  const storage = parseStorage(env);
  if ('error' in storage) return { ok: false, error: storage.error };
  const cors = parseCors(env.PLANT_STORE_CORS_ORIGINS);
  if ('error' in cors) return { ok: false, error: cors.error };
  const location = parseLocation(env);
  if ('error' in location) return { ok: false, error: location.error };
  const limits = parseLimits(env);
  if ('error' in limits) return { ok: false, error: limits.error };
  if (limits.value.maxPlants !== undefined && storage.value.kind !== 'memory') {
    return {
      ok: false,
      error: 'PLANT_STORE_MAX_PLANTS caps the memory store: not with DATABASE_URL',
    };
  }
  if (limits.value.pgPoolMax !== undefined && storage.value.kind !== 'postgres') {
    return { ok: false, error: 'PLANT_STORE_PG_POOL_MAX needs DATABASE_URL' };
  }
  const log = parseLog(env.PLANT_STORE_LOG);
  if ('error' in log) return { ok: false, error: log.error };
  const admin = parseAdmin(env);
  if ('error' in admin) return { ok: false, error: admin.error };
  return {
    ok: true,
    settings: {
      port: port.value,
      host: host.value,
      auth: auth.value,
      storage: storage.value,
      cors: cors.value,
      location: location.value,
      limits: limits.value,
      log: log.value,
      admin: admin.value,
    },
  };
}

/**
 * `PLANT_STORE_CORS_ORIGINS`: unset, CORS is off; `*` allows every origin; else a comma-separated
 * list (trimmed, empty entries skipped) of exact origins and subdomain patterns
 * (`https://*.example.com`), each written as a browser sends it, as `createCors` takes them.
 */
function parseCors(raw: string | undefined): Parsed<CorsOptions | undefined> {
  if (raw === undefined) return { value: undefined };
  if (raw.trim() === '*') return { value: { origins: '*' } };
  const origins: string[] = [];
  for (const entry of raw.split(',')) {
    const origin = entry.trim();
    if (origin === '') continue;
    const problem = originProblem(origin);
    if (problem !== undefined) return { error: `PLANT_STORE_CORS_ORIGINS: ${problem}` };
    origins.push(origin);
  }
  if (origins.length === 0) {
    return {
      error:
        'PLANT_STORE_CORS_ORIGINS is set but holds no origin (comma-separated origins such as https://app.example.com, or *)',
    };
  }
  return { value: { origins } };
}

function parsePort(raw: string | undefined): Parsed<number> {
  if (raw === undefined) return { value: DEFAULT_PORT };
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port <= 65535)) {
    return { error: `PORT must be an integer in 0-65535, got ${JSON.stringify(raw)}` };
  }
  return { value: port };
}

function parseHost(raw: string | undefined): Parsed<string> {
  if (raw === undefined) return { value: DEFAULT_HOST };
  // An empty host would make node listen on every interface: never by accident.
  if (raw.trim() === '') return { error: 'HOST must not be empty' };
  return { value: raw };
}

function parseStorage(env: SettingsEnv): Parsed<StorageSettings> {
  const url = env.DATABASE_URL;
  if (url === undefined) return { value: { kind: 'memory' } };
  // Never echo the URL: it usually carries the database password.
  if (!hasProtocol(url, ['postgres:', 'postgresql:'])) {
    return { error: 'DATABASE_URL must be a postgres:// or postgresql:// URL' };
  }
  return { value: { kind: 'postgres', url } };
}
