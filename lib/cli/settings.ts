/**
 * The standalone server's settings, parsed from the environment without side effects, so the
 * CLI only acts on the result. Each variable is read by its entry in `SETTINGS`
 * (`settings-table.ts`); here they are checked against each other and shaped for `main.ts`. A
 * new setting is an entry there, its place in `Settings` here, and a row in the README's table.
 *
 * @module
 */

import type { CorsOptions } from '../cors.ts';
import { nearestName } from '../guards/check-option-names.ts';
import {
  type LogSettings,
  readValues,
  SETTINGS,
  type SettingName,
  type SettingsEnv,
  type SettingValues,
} from './settings-table.ts';

export type { LogSettings, SettingsEnv } from './settings-table.ts';

/**
 * How bearer tokens are checked.
 * - `tokens`: a fixed list (`PLANT_STORE_TOKENS`).
 * - `random-token`: no list given; the CLI generates one token and prints it once.
 * - `jwt`: tokens are JWTs checked against a JWKS (`PLANT_STORE_JWKS_URL` and friends).
 */
export type AuthSettings =
  | { readonly kind: 'tokens'; readonly tokens: readonly string[] }
  | { readonly kind: 'random-token' }
  | JwtAuthSettings;

/** JWT mode: what `createJwtVerifier` gets. */
export interface JwtAuthSettings {
  /** The kind of auth. */
  readonly kind: 'jwt';
  /** The JWKS URL (`PLANT_STORE_JWKS_URL`), http or https. */
  readonly jwksUrl: string;
  /** The exact `iss` a token must carry (`PLANT_STORE_JWT_ISSUER`). */
  readonly issuer: string;
  /** The audience a token's `aud` must contain (`PLANT_STORE_JWT_AUDIENCE`). */
  readonly audience: string;
  /**
   * The algorithm allowlist (`PLANT_STORE_JWT_ALGORITHMS`), trimmed, in order. `undefined` when
   * unset: `createJwtVerifier`'s default, `DEFAULT_JWT_ALGORITHMS`, applies. The names are not
   * checked here (that would load jose): `createJwtVerifier` refuses `none`, HMAC and unknown ones.
   */
  readonly algorithms: readonly string[] | undefined;
}

/**
 * Where plants are stored.
 * - `memory`: in the process, for as long as it lives.
 * - `postgres`: in PostgreSQL at `url` (`DATABASE_URL`), through `pg`.
 */
export type StorageSettings =
  { readonly kind: 'memory' } | { readonly kind: 'postgres'; readonly url: string };

/** Where the API lives, as clients see it. */
export interface LocationSettings {
  /** The URL clients reach the API at (`PLANT_STORE_PUBLIC_URL`), or `undefined`. */
  readonly publicUrl: string | undefined;
  /**
   * The path the routes and `/docs` are under (`PLANT_STORE_BASE_PATH`, else the public URL's
   * path, for a proxy that passes the path on unchanged), `''` for the root.
   */
  readonly basePath: string;
}

/** The limits, each from its `PLANT_STORE_*` setting or its default in `SETTINGS`. */
export interface Limits {
  /** `PLANT_STORE_MAX_BODY_BYTES`: the largest body accepted. */
  readonly maxBodyBytes: number;
  /** `PLANT_STORE_TIMEOUT_MS`: the deadline of one create. */
  readonly timeoutMs: number;
  /** `PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS`: how long an idle connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** `PLANT_STORE_HEADERS_TIMEOUT_MS`: how long a client has to send its headers. */
  readonly headersTimeoutMs: number;
  /** `PLANT_STORE_REQUEST_TIMEOUT_MS`: how long a client has to send its whole request. */
  readonly requestTimeoutMs: number;
  /** `PLANT_STORE_PG_POOL_MAX`: the most PostgreSQL connections. */
  readonly pgPoolMax: number;
  /** `PLANT_STORE_PG_MAX_BATCH`: the most creates in one statement (`maxBatchSize`). */
  readonly pgMaxBatch: number;
  /** `PLANT_STORE_PG_MAX_IN_FLIGHT`: the most statements of creates in flight (`maxInFlight`). */
  readonly pgMaxInFlight: number;
  /** `PLANT_STORE_PG_PREPARE`: whether statements are named, prepared once per connection. */
  readonly pgPrepare: boolean;
  /** `PLANT_STORE_MAX_PLANTS`: the most plants the memory store keeps, or no cap. */
  readonly maxPlants: number | undefined;
  /** `PLANT_STORE_MAX_CONNECTIONS`: the most connections open at once. */
  readonly maxConnections: number;
}

/** Where the admin listener listens (`PLANT_STORE_ADMIN_PORT`, `PLANT_STORE_ADMIN_HOST`). */
export interface AdminSettings {
  /** The port; `0` picks a free one. */
  readonly port: number;
  /** The interface. */
  readonly host: string;
}

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
  /** Where the API lives (`PLANT_STORE_PUBLIC_URL`, `PLANT_STORE_BASE_PATH`). */
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

/**
 * Parses the standalone server's settings from an environment. Pure: it reads only `env`,
 * generates nothing, loads nothing and prints nothing. `SETTINGS` (and the README's table)
 * lists them. A setting counts as set when it is present, even empty.
 *
 * The checks run in this order: an unknown `PLANT_STORE_*` variable (the error suggests the
 * nearest known name), then settings that need or exclude others, then each value in table
 * order, then the headers timeout against the request timeout. An error message names the
 * setting and never echoes a token or a URL that may hold a password.
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

/** Settings that were, each with what to set instead. */
const RETIRED: Readonly<Record<string, string>> = {
  PLANT_STORE_TRUST_PROXY:
    "PLANT_STORE_TRUST_PROXY is retired: the OpenAPI document's server is relative now, right behind any proxy; set PLANT_STORE_PUBLIC_URL to name an absolute one",
};

/** An unknown `PLANT_STORE_*` variable, as an error naming the nearest known one. */
function unknownSetting(env: SettingsEnv): string | undefined {
  const known = Object.keys(SETTINGS);
  const name = Object.keys(env).find(
    (key) => key.startsWith('PLANT_STORE_') && !Object.hasOwn(SETTINGS, key),
  );
  if (name === undefined) return undefined;
  if (Object.hasOwn(RETIRED, name)) return RETIRED[name];
  return `${name} is not a setting plant-store knows; did you mean ${nearestName(name, known)}? (plant-store --help lists them)`;
}

/** The settings that select JWT mode, in the order an error names them. */
const JWT_SETTINGS = [
  'PLANT_STORE_JWKS_URL',
  'PLANT_STORE_JWT_ISSUER',
  'PLANT_STORE_JWT_AUDIENCE',
  'PLANT_STORE_JWT_ALGORITHMS',
] as const;

/** A setting present without one it needs, or beside one it excludes. */
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

/** The values shaped as `main.ts` uses them. */
function settingsOf(v: SettingValues): Settings {
  const publicUrl = v.PLANT_STORE_PUBLIC_URL;
  return {
    port: v.PORT,
    host: v.HOST,
    auth: authOf(v),
    storage:
      v.DATABASE_URL === undefined ? { kind: 'memory' } : { kind: 'postgres', url: v.DATABASE_URL },
    cors: v.PLANT_STORE_CORS_ORIGINS,
    location: {
      publicUrl,
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
  };
}

/** JWT mode when the JWKS URL is set, else the token list, else one random token. */
function authOf(v: SettingValues): AuthSettings {
  const { PLANT_STORE_JWKS_URL: jwksUrl, PLANT_STORE_TOKENS: tokenList } = v;
  if (jwksUrl !== undefined) {
    // combinationProblem made sure the issuer and the audience are set with the JWKS URL.
    const issuer = v.PLANT_STORE_JWT_ISSUER as string;
    const audience = v.PLANT_STORE_JWT_AUDIENCE as string;
    return { kind: 'jwt', jwksUrl, issuer, audience, algorithms: v.PLANT_STORE_JWT_ALGORITHMS };
  }
  return tokenList === undefined ? { kind: 'random-token' } : { kind: 'tokens', tokens: tokenList };
}
