/**
 * The standalone server's settings, parsed from the environment without side effects: every
 * setting is read and checked here, so the CLI only acts on the result. Each capability has its
 * own parser (`parseAuth`, `parseStorage`) and its own tagged union, so JWT auth and PostgreSQL
 * storage slot in as new `kind`s without touching the rest.
 *
 * @module
 */

import type { CorsOptions } from '../cors.ts';
import { B64TOKEN } from '../operation/bearer-token.ts';
import { originProblem } from '../cors/create-cors.ts';

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

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
}

/** What `parseSettings` reports: the settings, or one line saying what is wrong. */
export type ParseSettingsResult =
  | { readonly ok: true; readonly settings: Settings }
  | { readonly ok: false; readonly error: string };

/** The default `PORT`. */
export const DEFAULT_PORT = 3000;
/** The default `HOST`: loopback only, so a fresh start is not reachable from the network. */
export const DEFAULT_HOST = '127.0.0.1';

/** The settings that select JWT mode, in the order an error names them. */
const JWT_SETTINGS = [
  'PLANT_STORE_JWKS_URL',
  'PLANT_STORE_JWT_ISSUER',
  'PLANT_STORE_JWT_AUDIENCE',
  'PLANT_STORE_JWT_ALGORITHMS',
] as const;

type Parsed<T> = { readonly value: T } | { readonly error: string };

/**
 * Parses the standalone server's settings (`PORT`, `HOST`, `PLANT_STORE_TOKENS`, the JWT
 * settings, `DATABASE_URL`) from an environment. Pure: it reads only `env`, generates nothing,
 * loads nothing and prints nothing.
 *
 * `PORT` defaults to 3000 and must be an integer in 0-65535 written in decimal digits; `HOST`
 * defaults to `127.0.0.1` and must not be empty; `PLANT_STORE_TOKENS` is a comma-separated list
 * whose entries are trimmed and whose empty entries are skipped; set but holding no token, or
 * holding a token that is not an RFC 6750 `b64token`, it is an error. Unset, auth is
 * `random-token`.
 *
 * JWT mode: `PLANT_STORE_JWKS_URL` (an http or https URL) with both `PLANT_STORE_JWT_ISSUER` and
 * `PLANT_STORE_JWT_AUDIENCE` (non-empty), and optionally `PLANT_STORE_JWT_ALGORITHMS` (a
 * comma-separated list, trimmed, empty entries skipped; set but holding none is an error). Any of
 * them together with `PLANT_STORE_TOKENS`, any of them without the JWKS URL, or the URL without
 * both issuer and audience is an error. A setting counts as set when it is present, even empty.
 *
 * `DATABASE_URL`, when set, must be a `postgres://` or `postgresql://` URL: storage is then
 * `postgres`, else `memory`. `PLANT_STORE_CORS_ORIGINS`, when set, is `*` or a comma-separated
 * list of exact origins (`https://app.example.com`); unset, CORS is off. An error message names the setting and never echoes a token or a
 * database URL (either may hold a secret).
 *
 * @param env The environment, such as `process.env`.
 * @returns The settings, or a one-line error.
 * @example
 * ```ts
 * const result = parseSettings({ PORT: '0', PLANT_STORE_TOKENS: 'alpha, beta' });
 * // { ok: true, settings: { port: 0, host: '127.0.0.1',
 * //   auth: { kind: 'tokens', tokens: ['alpha', 'beta'] }, storage: { kind: 'memory' },
//   cors: undefined } }
 * ```
 */
export function parseSettings(env: SettingsEnv): ParseSettingsResult {
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
  return {
    ok: true,
    settings: {
      port: port.value,
      host: host.value,
      auth: auth.value,
      storage: storage.value,
      cors: cors.value,
    },
  };
}

/**
 * `PLANT_STORE_CORS_ORIGINS`: unset, CORS is off; `*` allows every origin; else a comma-separated
 * list of exact origins (trimmed, empty entries skipped), each written as a browser sends it.
 */
function parseCors(raw: string | undefined): Parsed<CorsOptions | undefined> {
  if (raw === undefined) return { value: undefined };
  if (raw.trim() === '*') return { value: { origins: '*' } };
  const origins: string[] = [];
  for (const entry of raw.split(',')) {
    const origin = entry.trim();
    if (origin === '') continue;
    const problem = origin === '*' ? "'*' stands alone, not in a list" : originProblem(origin);
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

function parseAuth(env: SettingsEnv): Parsed<AuthSettings> {
  const jwtSetting = JWT_SETTINGS.find((name) => env[name] !== undefined);
  if (jwtSetting !== undefined) {
    if (env.PLANT_STORE_TOKENS !== undefined) {
      return {
        error: `PLANT_STORE_TOKENS and ${jwtSetting} exclude each other: set a token list or the JWT settings, not both`,
      };
    }
    return parseJwt(env);
  }
  return parseTokens(env.PLANT_STORE_TOKENS);
}

function parseJwt(env: SettingsEnv): Parsed<JwtAuthSettings> {
  const jwksUrl = env.PLANT_STORE_JWKS_URL;
  if (jwksUrl === undefined) {
    const first = JWT_SETTINGS.find((name) => env[name] !== undefined);
    return { error: `${first} needs PLANT_STORE_JWKS_URL (JWT mode)` };
  }
  if (!hasProtocol(jwksUrl, ['http:', 'https:'])) {
    return { error: 'PLANT_STORE_JWKS_URL must be an http or https URL' };
  }
  const { PLANT_STORE_JWT_ISSUER: issuer, PLANT_STORE_JWT_AUDIENCE: audience } = env;
  if (issuer === undefined || audience === undefined) {
    return {
      error:
        'PLANT_STORE_JWKS_URL needs both PLANT_STORE_JWT_ISSUER and PLANT_STORE_JWT_AUDIENCE (JWT mode)',
    };
  }
  if (issuer === '') return { error: 'PLANT_STORE_JWT_ISSUER must not be empty' };
  if (audience === '') return { error: 'PLANT_STORE_JWT_AUDIENCE must not be empty' };
  let algorithms: string[] | undefined;
  const rawAlgorithms = env.PLANT_STORE_JWT_ALGORITHMS;
  if (rawAlgorithms !== undefined) {
    algorithms = rawAlgorithms
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (algorithms.length === 0) {
      return {
        error: 'PLANT_STORE_JWT_ALGORITHMS is set but holds no algorithm (comma-separated list)',
      };
    }
  }
  return { value: { kind: 'jwt', jwksUrl, issuer, audience, algorithms } };
}

function parseTokens(raw: string | undefined): Parsed<AuthSettings> {
  if (raw === undefined) return { value: { kind: 'random-token' } };
  const tokens: string[] = [];
  for (const entry of raw.split(',')) {
    const token = entry.trim();
    if (token === '') continue;
    if (!B64TOKEN.test(token)) {
      return {
        error: `PLANT_STORE_TOKENS: token ${tokens.length + 1} is not a valid bearer token (RFC 6750 b64token: letters, digits, -._~+/ then optional =)`,
      };
    }
    tokens.push(token);
  }
  if (tokens.length === 0) {
    return { error: 'PLANT_STORE_TOKENS is set but holds no token (comma-separated list)' };
  }
  return { value: { kind: 'tokens', tokens } };
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

function hasProtocol(raw: string, protocols: readonly string[]): boolean {
  // URL.canParse is Node 19.9+; the constructor works on every Node this package supports.
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}
