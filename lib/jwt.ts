/**
 * `plant-store/jwt`: a `TokenVerifier` for JWT bearer tokens. Needs `jose`.
 * @module
 */

export type { JwtAlgorithm } from './verifiers/jwt-algorithms.ts';
export { DEFAULT_JWT_ALGORITHMS } from './verifiers/jwt-algorithms.ts';
export type { JwtKeyStatus } from './verifiers/jwks-keys.ts';
export type { CreateJwtVerifierOptions } from './verifiers/jwt-options.ts';
export type { JwtVerifier } from './verifiers/jwt-verifier.ts';
export { createJwtVerifier } from './verifiers/jwt-verifier.ts';
