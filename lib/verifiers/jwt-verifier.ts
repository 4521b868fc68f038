// Every cryptographic and claim check is jose's; this decides what is allowed and sorts jose's
// failures into an invalid token (`401`) and one that could not be checked (thrown: `500`).

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

// `ERR_JOSE_NOT_SUPPORTED` is an unknown `crit` or an algorithm the runtime lacks, and
// `ERR_JWKS_NO_MATCHING_KEY` comes after the refetch the unknown `kid` allowed: invalid tokens.
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

type JwtVerdict = TokenVerdict<JWTPayload>;

const BAD_SIGNATURE: JwtVerdict = Object.freeze({ valid: false, reason: 'bad_signature' });

const FIXED_STATUS: JwtKeyStatus = Object.freeze({ ready: true, keys: 'fixed' });

/**
 * The verifier `createJwtVerifier` returns: a `TokenVerifier` whose principal is the token's
 * verified claims, and that tells a host whether its keys can serve.
 *
 * @example
 * ```ts
 * import { createJwtVerifier } from 'plant-store/jwt';
 *
 * const verifier = createJwtVerifier({
 *   jwksUrl: 'https://id.example.com/.well-known/jwks.json',
 *   issuer: 'https://id.example.com/',
 *   audience: 'plant-store',
 * });
 * await verifier.reload(); // the keys before the first request
 * const { ready } = verifier.status(); // for a readiness probe
 * ```
 */
export interface JwtVerifier extends TokenVerifier<JWTPayload> {
  /**
   * The state of the keys, for a readiness probe; like a request, it starts a refetch that is due,
   * so a probe keeps an idle server's keys fresh.
   */
  status(): JwtKeyStatus;
  /**
   * Fetches the JWKS now, joining a fetch under way; rejects with the fetch's error. With a fixed
   * `key`, resolves at once.
   */
  reload(): Promise<void>;
}

/**
 * Creates a `TokenVerifier` that accepts a JWT only when jose verifies its signature with a
 * trusted key under an allowed algorithm, and its claims: the exact `iss`, an `aud` containing
 * `audience`, an `exp` (required) and any `nbf`, within `clockTolerance`.
 *
 * Refused whatever else holds ([RFC 8725](https://www.rfc-editor.org/rfc/rfc8725)): `alg: none`,
 * HMAC without a configured secret, keys a token names or embeds (`jwk`, `jku`, `x5u`, `x5c`) and
 * unknown `crit`. A refusal is `{ valid: false, reason }`; `verify` throws only when the token
 * could not be checked (no usable keys, or the signal fired), which the store answers with `500`.
 * The JWKS is fetched on first use and refetched in the background past `cacheMaxAge`; through an
 * outage its keys serve until `maxStaleAge`.
 *
 * @param options The key source (`jwksUrl` or `key`), the issuer and audience, and the limits.
 * @returns A verifier for `createPlantStore({ verifier })`, with `status()` and `reload()`.
 * @throws {TypeError} At once, on any misuse of the options; the message names the option.
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

/** A kid-less token, several keys for its alg (a rotation often publishes two): the first wins. */
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
 * Before a key is in hand, any other error (a JWKS timeout, a non-200 answer, a fetch `TypeError`)
 * means the token could not be checked; after, a `TypeError` is jose refusing this key for the alg.
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
