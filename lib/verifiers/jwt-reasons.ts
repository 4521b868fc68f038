import type { TokenRejectionReason, TokenVerdict } from '../types.ts';

/** One frozen verdict per reason: a refusal builds no object. */
const REFUSALS = new Map<TokenRejectionReason, TokenVerdict<never>>(
  (
    [
      'expired',
      'not_yet_valid',
      'wrong_issuer',
      'wrong_audience',
      'unknown_key',
      'bad_signature',
      'malformed',
    ] as const
  ).map((reason) => [reason, Object.freeze({ valid: false, reason })]),
);

/** The verdict for a token jose refused (a refusal, not a failure to check it). */
export function refusal(error: unknown): TokenVerdict<never> {
  return REFUSALS.get(reasonOf(error)) as TokenVerdict<never>;
}

// A missing required claim is `malformed`; a `TypeError` is jose's for a key of another type.
function reasonOf(error: unknown): TokenRejectionReason {
  switch (codeOf(error)) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const { claim, reason } = error as { claim?: unknown; reason?: unknown };
      if (claim === 'nbf' && reason === 'check_failed') return 'not_yet_valid';
      if (claim === 'iss') return 'wrong_issuer';
      if (claim === 'aud') return 'wrong_audience';
      return 'malformed';
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'bad_signature';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'unknown_key';
    default:
      return error instanceof TypeError ? 'unknown_key' : 'malformed';
  }
}

/** An error's string `code`, if it has one. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
