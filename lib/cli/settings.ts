/**
 * The standalone server's settings, parsed from the environment without side effects: each
 * variable read by its `SETTINGS` entry, then checked against the others and shaped for
 * `main.ts`.
 *
 * @module
 */

import type { CorsOptions } from '../cors.ts';
import {
  DEFAULT_DRAIN_MS,
  type LogSettings,
  readValues,
  SETTINGS,
  type SettingName,
  type SettingsEnv,
  type SettingValues,
} from './settings-table.ts';

export type { LogSettings, SettingsEnv } from './settings-table.ts';

/** A fixed token list, one random token the CLI prints once, or JWTs checked against a JWKS. */
export type AuthSettings =
  | { readonly kind: 'tokens'; readonly tokens: readonly string[] }
  | { readonly kind: 'random-token' }
  | JwtAuthSettings;

export interface JwtAuthSettings {
  readonly kind: 'jwt';
  readonly jwksUrl: string;
  readonly issuer: string;
  readonly audience: string;
  /**
   * Unchecked here, which would load jose: `createJwtVerifier` refuses `none`, HMAC and unknown
   * names. `undefined` leaves its default.
   */
  readonly algorithms: readonly string[] | undefined;
}

export type StorageSettings =
  | { readonly kind: 'memory' }
  | { readonly kind: 'postgres'; readonly url: string; readonly table: string };

export interface LocationSettings {
  readonly publicUrl: string | undefined;
  /** `''` for the root. */
  readonly basePath: string;
}

/** Each from its `PLANT_STORE_*` setting, named alike. */
export interface Limits {
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly pgPoolMax: number;
  readonly pgMaxBatch: number;
  readonly pgMaxInFlight: number;
  readonly pgPrepare: boolean;
  /** `undefined`: no cap. */
  readonly maxPlants: number | undefined;
  readonly maxConnections: number;
}

export interface AdminSettings {
  readonly port: number;
  readonly host: string;
}

export interface Settings {
  readonly port: number;
  readonly host: string;
  readonly auth: AuthSettings;
  readonly storage: StorageSettings;
  /** `undefined`: CORS off. */
  readonly cors: CorsOptions | undefined;
  readonly location: LocationSettings;
  readonly limits: Limits;
  readonly log: LogSettings;
  /** `undefined`: no admin listener. */
  readonly admin: AdminSettings | undefined;
  /** How long a stop signal leaves the server serving before it stops accepting. */
  readonly drainMs: number;
}

export type ParseSettingsResult =
  | { readonly ok: true; readonly settings: Settings }
  | { readonly ok: false; readonly error: string };

/**
 * Parses the standalone server's settings from an environment, reading nothing else and
 * printing nothing. A setting counts as set when it is present, even empty.
 *
 * Checked in this order: an unknown `PLANT_STORE_*` variable, settings that need or exclude
 * others, each value in table order, the headers timeout against the request timeout. The error
 * is one line that names the setting and never echoes a token or a URL that may hold a password.
 *
 * @param env The environment, such as `process.env`.
 * @returns The settings, or a one-line error.
 */
export function parseSettings(env: SettingsEnv): ParseSettingsResult {
  const problem = unknownSetting(env) ?? combinationProblem(env);
  if (problem !== undefined) return { ok: false, error: problem };
  const read = readValues(env);
  if (read.problem !== undefined) return { ok: false, error: read.problem };
  const values = read.value;
  if (values.PLANT_STORE_HEADERS_TIMEOUT_MS > values.PLANT_STORE_REQUEST_TIMEOUT_MS) {
    return {
      ok: false,
      error: 'PLANT_STORE_HEADERS_TIMEOUT_MS must not exceed PLANT_STORE_REQUEST_TIMEOUT_MS',
    };
  }
  return { ok: true, settings: settingsOf(values) };
}

const RETIRED: Readonly<Record<string, string>> = {
  PLANT_STORE_TRUST_PROXY:
    "PLANT_STORE_TRUST_PROXY is retired: the OpenAPI document's server is relative now, right behind any proxy; set PLANT_STORE_PUBLIC_URL to name an absolute one",
};

function unknownSetting(env: SettingsEnv): string | undefined {
  const known = Object.keys(SETTINGS);
  const name = Object.keys(env).find(
    (key) => key.startsWith('PLANT_STORE_') && !Object.hasOwn(SETTINGS, key),
  );
  if (name === undefined) return undefined;
  if (Object.hasOwn(RETIRED, name)) return RETIRED[name];
  return `${name} is not a setting plant-store knows; did you mean ${nearestName(name, known)}? (plant-store --help lists them)`;
}

/** In the order an error names them. */
const JWT_SETTINGS = [
  'PLANT_STORE_JWKS_URL',
  'PLANT_STORE_JWT_ISSUER',
  'PLANT_STORE_JWT_AUDIENCE',
  'PLANT_STORE_JWT_ALGORITHMS',
] as const;

function combinationProblem(env: SettingsEnv): string | undefined {
  const has = (name: SettingName) => env[name] !== undefined;
  const jwt = JWT_SETTINGS.find(has);
  if (jwt !== undefined && has('PLANT_STORE_TOKENS')) {
    return `PLANT_STORE_TOKENS and ${jwt} exclude each other: set a token list or the JWT settings, not both`;
  }
  if (jwt !== undefined && !has('PLANT_STORE_JWKS_URL')) {
    return `${jwt} needs PLANT_STORE_JWKS_URL (JWT mode)`;
  }
  if (jwt !== undefined && !(has('PLANT_STORE_JWT_ISSUER') && has('PLANT_STORE_JWT_AUDIENCE'))) {
    return 'PLANT_STORE_JWKS_URL needs both PLANT_STORE_JWT_ISSUER and PLANT_STORE_JWT_AUDIENCE (JWT mode)';
  }
  if (has('PLANT_STORE_ADMIN_HOST') && !has('PLANT_STORE_ADMIN_PORT')) {
    return 'PLANT_STORE_ADMIN_HOST needs PLANT_STORE_ADMIN_PORT';
  }
  for (const name of [
    'PLANT_STORE_TABLE',
    'PLANT_STORE_PG_POOL_MAX',
    'PLANT_STORE_PG_MAX_BATCH',
    'PLANT_STORE_PG_MAX_IN_FLIGHT',
    'PLANT_STORE_PG_PREPARE',
  ] as const) {
    if (has(name) && !has('DATABASE_URL')) return `${name} needs DATABASE_URL`;
  }
  if (has('PLANT_STORE_MAX_PLANTS') && has('DATABASE_URL')) {
    return 'PLANT_STORE_MAX_PLANTS caps the memory store: not with DATABASE_URL';
  }
  return undefined;
}

function settingsOf(v: SettingValues): Settings {
  const publicUrl = v.PLANT_STORE_PUBLIC_URL;
  return {
    port: v.PORT,
    host: v.HOST,
    auth: authOf(v),
    storage:
      v.DATABASE_URL === undefined
        ? { kind: 'memory' }
        : { kind: 'postgres', url: v.DATABASE_URL, table: v.PLANT_STORE_TABLE },
    cors: v.PLANT_STORE_CORS_ORIGINS,
    location: {
      publicUrl,
      // Else the public URL's path, for a proxy that passes the path on unchanged.
      basePath:
        v.PLANT_STORE_BASE_PATH ??
        (publicUrl === undefined ? '' : new URL(publicUrl).pathname.replace(/\/$/, '')),
    },
    limits: {
      maxBodyBytes: v.PLANT_STORE_MAX_BODY_BYTES,
      timeoutMs: v.PLANT_STORE_TIMEOUT_MS,
      keepAliveTimeoutMs: v.PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: v.PLANT_STORE_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.PLANT_STORE_REQUEST_TIMEOUT_MS,
      pgPoolMax: v.PLANT_STORE_PG_POOL_MAX,
      pgMaxBatch: v.PLANT_STORE_PG_MAX_BATCH,
      pgMaxInFlight: v.PLANT_STORE_PG_MAX_IN_FLIGHT,
      pgPrepare: v.PLANT_STORE_PG_PREPARE,
      maxPlants: v.PLANT_STORE_MAX_PLANTS,
      maxConnections: v.PLANT_STORE_MAX_CONNECTIONS,
    },
    log: v.PLANT_STORE_LOG,
    admin:
      v.PLANT_STORE_ADMIN_PORT === undefined
        ? undefined
        : { port: v.PLANT_STORE_ADMIN_PORT, host: v.PLANT_STORE_ADMIN_HOST },
    drainMs:
      v.PLANT_STORE_DRAIN_MS ?? (v.PLANT_STORE_ADMIN_PORT === undefined ? 0 : DEFAULT_DRAIN_MS),
  };
}

function authOf(v: SettingValues): AuthSettings {
  const { PLANT_STORE_JWKS_URL: jwksUrl, PLANT_STORE_TOKENS: tokenList } = v;
  if (jwksUrl !== undefined) {
    // combinationProblem made sure they are set with the JWKS URL.
    const issuer = v.PLANT_STORE_JWT_ISSUER as string;
    const audience = v.PLANT_STORE_JWT_AUDIENCE as string;
    return { kind: 'jwt', jwksUrl, issuer, audience, algorithms: v.PLANT_STORE_JWT_ALGORITHMS };
  }
  return tokenList === undefined ? { kind: 'random-token' } : { kind: 'tokens', tokens: tokenList };
}

// An environment variable has no type checker: the nearest known name (case-insensitively) is
// the likely fix.
function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

// Levenshtein: insertions, deletions, substitutions.
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
