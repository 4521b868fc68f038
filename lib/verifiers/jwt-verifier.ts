/**
 * The JWT `TokenVerifier` behind `plant-store/jwt`, built on
 * [jose](https://github.com/panva/jose) (an optional peer dependency, so the core stays
 * dependency-free). Every cryptographic and claim check is jose's; this module only decides what
 * is allowed and sorts jose's failures into "invalid token" (`401`) and "could not be checked"
 * (thrown, so `500`).
 *
 * @module
 */

import {
  errors,
  type CryptoKey as JoseCryptoKey,
  type JWTPayload,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose';
import type { TokenVerdict, TokenVerifier, TokenVerifierContext } from '../types.ts';
import { createJwksKeys, type JwtKeyStatus, type KeySource } from './jwks-keys.ts';
import { codeOf, refusal } from './jwt-reasons.ts';
import { type CreateJwtVerifierOptions, checkJwtVerifierOptions } from './jwt-options.ts';

/** Header parameters that carry or point at a key: a token never chooses its own key. */
const EMBEDDED_KEY_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;

/**
 * jose's error codes for a token that is not acceptable: the answer is `{ valid: false }`, with
 * the reason the error tells (`jwt-reasons.ts`).
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

/** The verdict of a verifier whose principal is a JWT's verified claims. */
type JwtVerdict = TokenVerdict<JWTPayload>;

/** A kid-less token that none of the candidate keys verifies. */
const BAD_SIGNATURE: JwtVerdict = Object.freeze({ valid: false, reason: 'bad_signature' });

/** The fixed key's state: always ready. */
const FIXED_STATUS: JwtKeyStatus = Object.freeze({ ready: true, keys: 'fixed' });

/**
 * The verifier `createJwtVerifier` returns: a `TokenVerifier` whose principal is the token's
 * verified claims, with what a host needs to know whether its keys can serve.
 *
 * @example
 * ```ts
 * const verifier = createJwtVerifier({ jwksUrl, issuer, audience });
 * await verifier.reload(); // the keys before the first request; rejects when they cannot be had
 * // In a readiness route: 503 once the keys are past maxStaleAge.
 * const { ready, keys } = verifier.status(); // keys: 'fresh' | 'stale' | 'expired' | ...
 * ```
 */
export interface JwtVerifier extends TokenVerifier<JWTPayload> {
  /**
   * The state of the keys: `ready` when tokens can be checked now, the age of the keys in use
   * and the last JWKS fetch's outcome. Cheap and synchronous, for a readiness probe; like a
   * request, it starts a background refetch when the keys are due one, so a probe keeps an idle
   * server's keys fresh. With a fixed `key`: always `{ ready: true, keys: 'fixed' }`.
   */
  status(): JwtKeyStatus;
  /**
   * Fetches the JWKS now, joining a fetch under way, and resolves once the keys are in hand;
   * rejects with the fetch's error. For a host that wants the keys before it serves. With a
   * fixed `key`, resolves at once.
   */
  reload(): Promise<void>;
}

/**
 * Creates a `TokenVerifier` that accepts a JWT only when jose verifies its signature with a
 * trusted key under an allowlisted algorithm and its claims: the exact `iss`, an `aud` that
 * contains `audience`, an `exp` (required) in the future and an `nbf` (when present) in the
 * past, both within `clockTolerance`.
 *
 * Refused whatever else holds: `alg: none`, HMAC without a configured secret, keys named or
 * embedded in the token (`jwk`, `jku`, `x5u`, `x5c` headers) and unknown `crit` extensions. The
 * verified claims (jose's `JWTPayload`) are the principal, typed all the way to the repository.
 * `verify` throws, rather than answering `{ valid: false }`, only when the token could not be
 * checked: the JWKS could not be fetched (refused, timed out, not `200`, not JSON, not a key set)
 * and no usable keys are in hand, or the token's `kid` is not among them, or the request's signal
 * fired. A plant store answers that with `500`, never by letting the request through. A refusal
 * says why (`{ valid: false, reason }`: `expired`, `not_yet_valid`, `wrong_issuer`,
 * `wrong_audience`, `unknown_key`, `bad_signature` or `malformed`), for the store's
 * `onTokenRejected`.
 *
 * The JWKS is fetched on first use (or `reload()`). Keys older than `cacheMaxAge` keep serving
 * while a refetch runs in the background; through an outage of the key server they serve until
 * they are `maxStaleAge` old (24 hours by default), and a failed fetch is retried at most once per
 * `cooldownDuration`, never once per request. `status()` tells a readiness probe where the keys
 * stand. See
 * [RFC 7519](https://www.rfc-editor.org/rfc/rfc7519) and
 * [RFC 8725](https://www.rfc-editor.org/rfc/rfc8725) (JWT best current practices).
 *
 * @param options The key source, the expected issuer and audience, and the limits.
 * @returns A verifier for `createPlantStore({ verifier })`, with `status()` and `reload()`.
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
export function createJwtVerifier(options: CreateJwtVerifierOptions): JwtVerifier {
  const { verifyOptions, keys } = checkJwtVerifierOptions(options);
  let source: KeySource;
  if ('jwksUrl' in keys) {
    source = createJwksKeys(keys.jwksUrl, keys.remote, keys.timing);
  } else {
    const fixedKey = keys.key;
    source = {
      resolve: async () => fixedKey,
      status: () => FIXED_STATUS,
      reload: async () => {},
    };
  }
  const resolveKey = source.resolve;

  const check = async (token: string): Promise<JwtVerdict> => {
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
      if (isInvalidToken(error, keyInHand)) return refusal(error);
      throw error;
    }
  };

  return {
    verify(token: string, context?: TokenVerifierContext): Promise<JwtVerdict> {
      const signal = context?.signal;
      if (signal === undefined) return check(token);
      if (signal.aborted) return Promise.reject(signal.reason);
      // jose's jwtVerify takes no signal, and its JWKS fetch is shared by every waiting request
      // (so one client's signal must not cancel it): give up waiting instead.
      return raceSignal(check(token), signal);
    },
    status: () => source.status(),
    reload: () => source.reload(),
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
): Promise<JwtVerdict> {
  for await (const candidate of error as AsyncIterable<JoseCryptoKey>) {
    try {
      const { payload } = await jwtVerify(token, candidate, verifyOptions);
      return { valid: true, principal: payload };
    } catch (inner) {
      if (codeOf(inner) === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      if (isInvalidToken(inner, true)) return refusal(inner);
      throw inner;
    }
  }
  return BAD_SIGNATURE;
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
