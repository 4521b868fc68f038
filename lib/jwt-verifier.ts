/**
 * `plant-store/jwt`: a `TokenVerifier` for JWT bearer tokens, built on
 * [jose](https://github.com/panva/jose) (an optional peer dependency, so the core stays
 * dependency-free). Every cryptographic and claim check is jose's; this module only decides what
 * is allowed and sorts jose's failures into "invalid token" (`401`) and "could not be checked"
 * (thrown, so `500`).
 *
 * @module
 */

import {
  base64url,
  createRemoteJWKSet,
  errors,
  type CryptoKey as JoseCryptoKey,
  type JWK,
  type JWTVerifyOptions,
  jwtVerify,
  type KeyObject,
  type RemoteJWKSetOptions,
} from 'jose';
import type { TokenVerdict, TokenVerifier, TokenVerifierContext } from './types.ts';

/**
 * The allowlist `createJwtVerifier` uses when `algorithms` is not given and the key source is a
 * JWKS or a public key: `RS256`, `PS256`, `ES256` and `EdDSA`, the contract's default. Frozen.
 *
 * @example
 * ```ts
 * const verifier = createJwtVerifier({
 *   jwksUrl: 'https://id.example.com/.well-known/jwks.json',
 *   issuer: 'https://id.example.com/',
 *   audience: 'plant-store',
 *   algorithms: [...DEFAULT_JWT_ALGORITHMS, 'ES384'],
 * });
 * ```
 */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'PS256',
  'ES256',
  'EdDSA',
]);

/** Options of `createJwtVerifier`. Give exactly one key source: `jwksUrl` or `key`. */
export interface CreateJwtVerifierOptions {
  /**
   * The URL of the JSON Web Key Set (http or https) whose keys sign the tokens. Fetched on first
   * use, cached, and fetched again when a token names an unknown `kid` (at most once per
   * `cooldownDuration`). Exclusive with `key`.
   * @default undefined
   */
  readonly jwksUrl?: string | URL;
  /**
   * The one key instead of a JWKS: a public key (`CryptoKey`, `KeyObject` or public JWK) for the
   * asymmetric algorithms, or a symmetric secret (`Uint8Array`, secret `CryptoKey`/`KeyObject` or
   * `oct` JWK, at least as long as the HMAC hash) for `HS256`/`HS384`/`HS512`. Exclusive with
   * `jwksUrl`.
   * @default undefined
   */
  readonly key?: JoseCryptoKey | KeyObject | JWK | Uint8Array;
  /** The exact `iss` a token must carry. Required. */
  readonly issuer: string;
  /** The audience a token's `aud` (a string or an array of strings) must contain. Required. */
  readonly audience: string;
  /**
   * The allowlist of `alg` header values. Never `none`; the HMAC algorithms (`HS256`, `HS384`,
   * `HS512`) only, and all of them, with a symmetric `key`. Also known: `RS384`, `RS512`,
   * `PS384`, `PS512`, `ES384`, `ES512`, `Ed25519`.
   * @default DEFAULT_JWT_ALGORITHMS (`['RS256', 'PS256', 'ES256', 'EdDSA']`); `['HS256']` with a symmetric key
   */
  readonly algorithms?: readonly string[];
  /**
   * The clock skew allowed when checking `exp` and `nbf`, in seconds.
   * @default 30
   */
  readonly clockTolerance?: number;
  /**
   * How long after a successful JWKS fetch an unknown `kid` may not trigger another one, in
   * milliseconds (jose's `cooldownDuration`). A rotated key works at the latest this long after
   * the last fetch.
   * @default 30000
   */
  readonly cooldownDuration?: number;
  /**
   * How long a fetched JWKS is used before it is fetched again, in milliseconds (jose's
   * `cacheMaxAge`); `Infinity` keeps it until an unknown `kid` asks for a refetch.
   * @default 600000
   */
  readonly cacheMaxAge?: number;
  /**
   * How long one JWKS fetch may take, in milliseconds (jose's `timeoutDuration`); past it the
   * token could not be checked and `verify` throws.
   * @default 5000
   */
  readonly timeoutDuration?: number;
}

const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** The HMAC algorithms with the smallest secret each allows, in bytes (RFC 7518, section 3.2). */
const HMAC_ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ['HS256', 32],
  ['HS384', 48],
  ['HS512', 64],
]);

/** Header parameters that carry or point at a key: a token never chooses its own key. */
const EMBEDDED_KEY_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;

/**
 * jose's error codes for a token that is not acceptable: the answer is `{ valid: false }`.
 * `ERR_JOSE_NOT_SUPPORTED` is an unknown `crit` extension or an algorithm the runtime lacks;
 * `ERR_JWKS_NO_MATCHING_KEY` comes after the refetch the unknown `kid` allowed.
 */
const INVALID_TOKEN_CODES: ReadonlySet<string> = new Set([
  'ERR_JWS_INVALID',
  'ERR_JWT_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

const REJECTED: TokenVerdict = Object.freeze({ valid: false });

type KeyResolver = (
  header: Record<string, unknown>,
  token: unknown,
) => Promise<JoseCryptoKey | KeyObject | JWK | Uint8Array>;

/**
 * Creates a `TokenVerifier` that accepts a JWT only when jose verifies its signature with a
 * trusted key under an allowlisted algorithm and its claims: the exact `iss`, an `aud` that
 * contains `audience`, an `exp` (required) in the future and an `nbf` (when present) in the
 * past, both within `clockTolerance`.
 *
 * Refused whatever else holds: `alg: none`, HMAC without a configured secret, keys named or
 * embedded in the token (`jwk`, `jku`, `x5u`, `x5c` headers) and unknown `crit` extensions. The
 * verified claims are the principal. `verify` throws, rather than answering `{ valid: false }`,
 * only when the token could not be checked: the JWKS could not be fetched (refused, timed out,
 * not `200`, not JSON, not a key set) or the request's signal fired. A plant store answers that
 * with `500`, never by letting the request through. See
 * [RFC 7519](https://www.rfc-editor.org/rfc/rfc7519) and
 * [RFC 8725](https://www.rfc-editor.org/rfc/rfc8725) (JWT best current practices).
 *
 * @param options The key source, the expected issuer and audience, and the limits.
 * @returns A verifier for `createPlantStore({ verifier })`.
 * @throws {TypeError} At once, on misuse: no issuer or audience, no key source or both, a URL
 *   that is not http(s), a private or too short key, or an allowlist that is empty, names an
 *   unknown algorithm or `none`, or mixes HMAC with the key source.
 * @example
 * ```ts
 * import { createPlantStore } from 'plant-store';
 * import { createJwtVerifier } from 'plant-store/jwt';
 *
 * const verifier = createJwtVerifier({
 *   jwksUrl: 'https://id.example.com/.well-known/jwks.json',
 *   issuer: 'https://id.example.com/',
 *   audience: 'plant-store',
 * });
 * const store = createPlantStore({ verifier });
 * ```
 */
export function createJwtVerifier(options: CreateJwtVerifierOptions): TokenVerifier {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createJwtVerifier needs an options object');
  }
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

  let resolveKey: KeyResolver;
  if (jwksUrl !== undefined) {
    const remote = createRemoteJWKSet(parseJwksUrl(jwksUrl), remoteOptions(options));
    resolveKey = (header, token) => remote(header, token as Parameters<typeof remote>[1]);
  } else {
    const fixedKey = key as JoseCryptoKey | KeyObject | JWK | Uint8Array;
    resolveKey = async () => fixedKey;
  }

  const verifyOptions: JWTVerifyOptions = {
    issuer,
    audience,
    algorithms: [...algorithms],
    clockTolerance,
    requiredClaims: ['exp'],
  };

  const check = async (token: string): Promise<TokenVerdict> => {
    // Set once jose holds a trusted key: from then on every failure is about this token and
    // that key (wrong key type for its alg, bad signature, claims), never about fetching keys.
    let keyInHand = false;
    try {
      const { payload } = await jwtVerify(
        token,
        async (header, jws) => {
          refuseEmbeddedKeys(header);
          const resolved = await resolveKey(header, jws);
          keyInHand = true;
          return resolved as Uint8Array; // the cast only selects jwtVerify's getKey overload
        },
        verifyOptions,
      );
      return { valid: true, principal: payload };
    } catch (error) {
      if (codeOf(error) === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
        return tryEachCandidate(token, error, verifyOptions);
      }
      if (isInvalidToken(error, keyInHand)) return REJECTED;
      throw error;
    }
  };

  return {
    verify(token: string, context?: TokenVerifierContext): Promise<TokenVerdict> {
      const signal = context?.signal;
      if (signal === undefined) return check(token);
      if (signal.aborted) return Promise.reject(signal.reason);
      // jose's jwtVerify takes no signal, and its JWKS fetch is shared by every waiting request
      // (so one client's signal must not cancel it): give up waiting instead.
      return raceSignal(check(token), signal);
    },
  };
}

/**
 * A kid-less token against a JWKS with several keys for its alg: jose hands back every
 * candidate and the first that verifies wins (a rotation often publishes two keys).
 */
async function tryEachCandidate(
  token: string,
  error: unknown,
  verifyOptions: JWTVerifyOptions,
): Promise<TokenVerdict> {
  for await (const candidate of error as AsyncIterable<JoseCryptoKey>) {
    try {
      const { payload } = await jwtVerify(token, candidate, verifyOptions);
      return { valid: true, principal: payload };
    } catch (inner) {
      if (codeOf(inner) === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      if (isInvalidToken(inner, true)) return REJECTED;
      throw inner;
    }
  }
  return REJECTED;
}

/**
 * The classification. jose's codes for a bad token are invalid; before a key is in hand anything
 * else (`ERR_JWKS_TIMEOUT`, `ERR_JOSE_GENERIC` for a non-200 or non-JSON answer,
 * `ERR_JWKS_INVALID`, the fetch's own `TypeError`) means the token could not be checked. After,
 * a `TypeError` is jose refusing this key for this token's alg: invalid too.
 */
function isInvalidToken(error: unknown, keyInHand: boolean): boolean {
  const code = codeOf(error);
  if (code !== undefined && INVALID_TOKEN_CODES.has(code)) return true;
  return keyInHand && error instanceof TypeError;
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function refuseEmbeddedKeys(header: Record<string, unknown>): void {
  for (const name of EMBEDDED_KEY_HEADERS) {
    if (Object.hasOwn(header, name)) {
      // jose's own class for a bad header (ERR_JWS_INVALID): the classification needs no case.
      throw new errors.JWSInvalid(`the "${name}" header is refused: keys come from the verifier`);
    }
  }
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
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
    throw new TypeError(`createJwtVerifier: "jwksUrl" is not a URL: ${String(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('createJwtVerifier: "jwksUrl" must be an http or https URL');
  }
  return url;
}

function remoteOptions(options: CreateJwtVerifierOptions): RemoteJWKSetOptions {
  const remote: { -readonly [K in keyof RemoteJWKSetOptions]: RemoteJWKSetOptions[K] } = {};
  if (options.cooldownDuration !== undefined) remote.cooldownDuration = options.cooldownDuration;
  if (options.cacheMaxAge !== undefined) remote.cacheMaxAge = options.cacheMaxAge;
  if (options.timeoutDuration !== undefined) remote.timeoutDuration = options.timeoutDuration;
  // jose validates these three and throws a TypeError for a bad one, at construction.
  return remote;
}

/**
 * Returns the secret's length in bytes for a symmetric key, `undefined` for a public key, and
 * throws for anything else (a private key above all: a verifier never needs one).
 */
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
