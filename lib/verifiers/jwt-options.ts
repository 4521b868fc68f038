/**
 * Past 300 lines, still one job: each option beside the check that makes its misuse a `TypeError`
 * at construction, never a verifier that lets the wrong tokens through.
 */

import { checkOptionNames } from '../guards/check-option-names.ts';
import { redactUrl } from '../guards/redact-url.ts';
import {
  base64url,
  type CryptoKey as JoseCryptoKey,
  type JWK,
  type JWTVerifyOptions,
  type KeyObject,
  customFetch,
  type RemoteJWKSetOptions,
} from 'jose';
import { cappedFetch } from './capped-fetch.ts';
import {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_JWT_ALGORITHMS,
  HMAC_ALGORITHMS,
  type JwtAlgorithm,
} from './jwt-algorithms.ts';

/** Options of `createJwtVerifier`. Give exactly one key source: `jwksUrl` or `key`. */
export interface CreateJwtVerifierOptions {
  /**
   * The JSON Web Key Set URL (http or https), fetched on first use and again for an unknown `kid`.
   * @default undefined
   */
  readonly jwksUrl?: string | URL | undefined;
  /**
   * The one key instead of a JWKS: a public key for the asymmetric algorithms, or a symmetric
   * secret at least as long as the HMAC hash for `HS256`/`HS384`/`HS512`.
   * @default undefined
   */
  readonly key?: JoseCryptoKey | KeyObject | JWK | Uint8Array | undefined;
  /** The exact `iss` a token must carry. Required. */
  readonly issuer: string;
  /** The audience a token's `aud` (a string or an array of strings) must contain. Required. */
  readonly audience: string;
  /**
   * The allowed `alg` values, never `none`: `HS*` with a symmetric `key` and only then.
   * @default DEFAULT_JWT_ALGORITHMS (`['RS256', 'PS256', 'ES256', 'EdDSA']`); `['HS256']` with a symmetric key
   */
  readonly algorithms?: readonly JwtAlgorithm[] | undefined;
  /**
   * The clock skew allowed when checking `exp` and `nbf`, in seconds.
   * @default 30
   */
  readonly clockTolerance?: number | undefined;
  /**
   * The quiet time after a JWKS fetch, in milliseconds: no unknown `kid` or failure fetches sooner.
   * @default 30000
   */
  readonly cooldownDuration?: number | undefined;
  /**
   * How old a JWKS grows before a background refetch, in milliseconds; `Infinity` refetches only
   * for an unknown `kid`.
   * @default 600000
   */
  readonly cacheMaxAge?: number | undefined;
  /**
   * How old the last good JWKS may grow while it cannot be fetched again, in milliseconds, not
   * less than `cacheMaxAge`; past it, and before any fetch succeeded, `verify` throws.
   * @default 86400000 (24 hours), or `cacheMaxAge` when that is longer
   */
  readonly maxStaleAge?: number | undefined;
  /**
   * How long one JWKS fetch may take, in milliseconds; past it `verify` throws.
   * @default 5000
   */
  readonly timeoutDuration?: number | undefined;
  /**
   * The largest JWKS response read, in bytes, so that a key server cannot fill the memory.
   * @default 1048576 (1 MiB)
   */
  readonly maxJwksBytes?: number | undefined;
}

const KNOWN_OPTIONS = [
  'jwksUrl',
  'key',
  'issuer',
  'audience',
  'algorithms',
  'clockTolerance',
  'cooldownDuration',
  'cacheMaxAge',
  'maxStaleAge',
  'timeoutDuration',
  'maxJwksBytes',
];

/** How long keys are used and how often they may be fetched, in milliseconds. */
export interface JwksTiming {
  readonly cooldownDuration: number;
  readonly cacheMaxAge: number;
  readonly maxStaleAge: number;
}

/** A key `createJwtVerifier` holds itself, rather than fetching it from a JWKS. */
export type FixedKey = JoseCryptoKey | KeyObject | JWK | Uint8Array;

/** The options once checked: what `createJwtVerifier` builds its verifier from. */
export interface CheckedJwtOptions {
  readonly verifyOptions: JWTVerifyOptions;
  readonly keys:
    | {
        readonly jwksUrl: URL;
        readonly remote: RemoteJWKSetOptions;
        readonly timing: JwksTiming;
      }
    | { readonly key: FixedKey };
}

const DEFAULT_COOLDOWN_DURATION = 30_000;
const DEFAULT_CACHE_MAX_AGE = 600_000;
const DEFAULT_MAX_STALE_AGE = 86_400_000;
const DEFAULT_MAX_JWKS_BYTES = 1_048_576;

/** Checks the options and resolves their defaults; a misuse throws a `TypeError` naming it. */
export function checkJwtVerifierOptions(options: CreateJwtVerifierOptions): CheckedJwtOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createJwtVerifier needs an options object');
  }
  checkOptionNames('createJwtVerifier', options, KNOWN_OPTIONS);
  const issuer = requireNonEmptyString(options.issuer, 'issuer');
  const audience = requireNonEmptyString(options.audience, 'audience');
  const clockTolerance = options.clockTolerance ?? 30;
  if (
    typeof clockTolerance !== 'number' ||
    !Number.isFinite(clockTolerance) ||
    clockTolerance < 0
  ) {
    throw new TypeError(
      'createJwtVerifier: "clockTolerance" must be a non-negative number of seconds',
    );
  }

  const { jwksUrl, key } = options;
  if (jwksUrl === undefined && key === undefined) {
    throw new TypeError('createJwtVerifier needs a key source: "jwksUrl" or "key"');
  }
  if (jwksUrl !== undefined && key !== undefined) {
    throw new TypeError('createJwtVerifier takes one key source: "jwksUrl" or "key", not both');
  }

  const secretLength = key === undefined ? undefined : classifyKey(key);
  const symmetric = secretLength !== undefined;
  const algorithms = validateAlgorithms(options.algorithms, symmetric);
  if (symmetric) {
    for (const algorithm of algorithms) {
      const minimum = HMAC_ALGORITHMS.get(algorithm) ?? 0;
      if (secretLength < minimum) {
        throw new TypeError(
          `createJwtVerifier: a secret for ${algorithm} must be at least ${minimum} bytes long`,
        );
      }
    }
  }

  return {
    verifyOptions: {
      issuer,
      audience,
      algorithms: [...algorithms],
      clockTolerance,
      requiredClaims: ['exp'],
    },
    keys:
      jwksUrl === undefined
        ? { key: key as FixedKey }
        : {
            jwksUrl: parseJwksUrl(jwksUrl),
            remote: remoteOptions(options),
            timing: jwksTiming(options),
          },
  };
}

function requireNonEmptyString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`createJwtVerifier needs "${name}", a non-empty string`);
  }
  return value;
}

function parseJwksUrl(value: unknown): URL {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    throw new TypeError('createJwtVerifier: "jwksUrl" must be a string or a URL');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: a string that is not a URL could be anything, a secret included.
    throw new TypeError('createJwtVerifier: "jwksUrl" is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('createJwtVerifier: "jwksUrl" must be an http or https URL');
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses such a URL on every request, with the password in its message.
    throw new TypeError(
      `createJwtVerifier: "jwksUrl" must not hold a user name or password: ${redactUrl(url)}`,
    );
  }
  return url;
}

function remoteOptions(options: CreateJwtVerifierOptions): RemoteJWKSetOptions {
  const { maxJwksBytes = DEFAULT_MAX_JWKS_BYTES } = options;
  if (!Number.isSafeInteger(maxJwksBytes) || maxJwksBytes < 1) {
    throw new TypeError('createJwtVerifier: "maxJwksBytes" must be a positive integer');
  }
  // jose validates the timeout and throws a TypeError for a bad one, at construction.
  return {
    ...(options.timeoutDuration === undefined ? {} : { timeoutDuration: options.timeoutDuration }),
    [customFetch]: cappedFetch(maxJwksBytes),
  };
}

function jwksTiming(options: CreateJwtVerifierOptions): JwksTiming {
  const cooldownDuration = duration(options.cooldownDuration, 'cooldownDuration');
  const cacheMaxAge = duration(options.cacheMaxAge, 'cacheMaxAge') ?? DEFAULT_CACHE_MAX_AGE;
  const maxStaleAge = duration(options.maxStaleAge, 'maxStaleAge');
  if (maxStaleAge !== undefined && maxStaleAge < cacheMaxAge) {
    throw new TypeError(
      `createJwtVerifier: "maxStaleAge" (${maxStaleAge}) must not be less than "cacheMaxAge" (${cacheMaxAge})`,
    );
  }
  return {
    cooldownDuration: cooldownDuration ?? DEFAULT_COOLDOWN_DURATION,
    cacheMaxAge,
    maxStaleAge: maxStaleAge ?? Math.max(DEFAULT_MAX_STALE_AGE, cacheMaxAge),
  };
}

function duration(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(
      `createJwtVerifier: "${name}" must be a non-negative number of milliseconds`,
    );
  }
  return value;
}

/** A secret's length in bytes, `undefined` for a public key; a private key throws: never needed. */
function classifyKey(key: unknown): number | undefined {
  if (key instanceof Uint8Array) return key.byteLength;
  if (typeof key !== 'object' || key === null) {
    throw new TypeError(
      'createJwtVerifier: "key" must be a CryptoKey, KeyObject, JWK or Uint8Array',
    );
  }
  const tag = (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
  if (tag === 'CryptoKey' || tag === 'KeyObject') {
    const { type } = key as { type?: unknown };
    if (type === 'public') return undefined;
    if (type === 'secret') {
      const length =
        tag === 'KeyObject'
          ? (key as { symmetricKeySize?: unknown }).symmetricKeySize
          : Number((key as { algorithm?: { length?: unknown } }).algorithm?.length) / 8;
      return typeof length === 'number' && Number.isFinite(length) ? length : 0;
    }
    throw new TypeError('createJwtVerifier: "key" must be a public key or a secret, never private');
  }
  const jwk = key as JWK;
  if (typeof jwk.kty !== 'string') {
    throw new TypeError(
      'createJwtVerifier: "key" must be a CryptoKey, KeyObject, JWK or Uint8Array',
    );
  }
  if (jwk.kty === 'oct') {
    if (typeof jwk.k !== 'string') throw new TypeError('createJwtVerifier: an "oct" JWK needs "k"');
    return base64url.decode(jwk.k).byteLength;
  }
  if (jwk.d !== undefined || (jwk as { priv?: unknown }).priv !== undefined) {
    throw new TypeError('createJwtVerifier: "key" must be a public JWK, never a private one');
  }
  return undefined;
}

function validateAlgorithms(value: unknown, symmetric: boolean): readonly string[] {
  if (value === undefined) return symmetric ? ['HS256'] : DEFAULT_JWT_ALGORITHMS;
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError('createJwtVerifier: "algorithms" must be a non-empty array of names');
  }
  for (const algorithm of value) {
    if (typeof algorithm !== 'string') {
      throw new TypeError('createJwtVerifier: "algorithms" must be a non-empty array of names');
    }
    if (algorithm.toLowerCase() === 'none') {
      throw new TypeError('createJwtVerifier: "none" is never an allowed algorithm');
    }
    const hmac = HMAC_ALGORITHMS.has(algorithm);
    if (!hmac && !ASYMMETRIC_ALGORITHMS.has(algorithm)) {
      throw new TypeError(`createJwtVerifier: unknown algorithm "${algorithm}"`);
    }
    if (hmac && !symmetric) {
      throw new TypeError(
        `createJwtVerifier: ${algorithm} needs a symmetric secret "key"; never with a JWKS or public key`,
      );
    }
    if (!hmac && symmetric) {
      throw new TypeError(
        `createJwtVerifier: ${algorithm} needs a public key; a symmetric secret allows HS256/HS384/HS512 only`,
      );
    }
  }
  return [...new Set<string>(value)];
}
