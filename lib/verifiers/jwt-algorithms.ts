/**
 * The JWS algorithms `createJwtVerifier` knows (RFC 7518, RFC 8037): the asymmetric ones for a
 * JWKS or a public key, the HMAC ones (`HS*`) only with a symmetric secret. `none` is never one.
 */
export type JwtAlgorithm =
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'
  | 'Ed25519'
  | 'HS256'
  | 'HS384'
  | 'HS512';

/**
 * The allowlist `createJwtVerifier` uses for a JWKS or a public key when `algorithms` is not
 * given: `RS256`, `PS256`, `ES256` and `EdDSA`, the contract's default. Frozen.
 *
 * @example
 * ```ts
 * import { createJwtVerifier, DEFAULT_JWT_ALGORITHMS } from 'plant-store/jwt';
 *
 * const verifier = createJwtVerifier({
 *   jwksUrl: 'https://id.example.com/.well-known/jwks.json',
 *   issuer: 'https://id.example.com/',
 *   audience: 'plant-store',
 *   algorithms: [...DEFAULT_JWT_ALGORITHMS, 'ES384'],
 * });
 * ```
 */
export const DEFAULT_JWT_ALGORITHMS: readonly JwtAlgorithm[] = Object.freeze([
  'RS256',
  'PS256',
  'ES256',
  'EdDSA',
]);

/** The asymmetric algorithms: for a JWKS or a public key. */
export const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set([
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
export const HMAC_ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ['HS256', 32],
  ['HS384', 48],
  ['HS512', 64],
]);
