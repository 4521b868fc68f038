/**
 * The standalone server's auth settings: a fixed token list (`PLANT_STORE_TOKENS`), one random
 * token when none is given, or JWT mode (`PLANT_STORE_JWKS_URL` and friends).
 *
 * @module
 */

import { B64TOKEN } from '../operation/bearer-token.ts';
import { hasProtocol, type Parsed, type SettingsEnv } from './setting-values.ts';

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

/** The settings that select JWT mode, in the order an error names them. */
const JWT_SETTINGS = [
  'PLANT_STORE_JWKS_URL',
  'PLANT_STORE_JWT_ISSUER',
  'PLANT_STORE_JWT_AUDIENCE',
  'PLANT_STORE_JWT_ALGORITHMS',
] as const;

/**
 * Parses the auth settings: JWT mode when any JWT setting is present (with the JWKS URL, the
 * issuer and the audience all required, and never beside `PLANT_STORE_TOKENS`), else the token
 * list, else `random-token`.
 */
export function parseAuth(env: SettingsEnv): Parsed<AuthSettings> {
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
  const { username, password } = new URL(jwksUrl);
  if (username !== '' || password !== '') {
    // fetch refuses such a URL, with the password in its message: refused here, never echoed.
    return { error: 'PLANT_STORE_JWKS_URL must not hold a user name or password' };
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
