import type { TokenVerdict, TokenVerifier } from './types.ts';

const ACCEPTED: TokenVerdict = Object.freeze({ valid: true });
const REJECTED: TokenVerdict = Object.freeze({ valid: false });

/**
 * Creates a `TokenVerifier` that accepts a fixed list of bearer tokens.
 *
 * Every presented token is compared with every accepted one without an early exit, so the time
 * taken depends only on the presented token's length and the number of accepted tokens, never
 * on how much of a secret it matched.
 *
 * @param tokens The accepted tokens: at least one, none empty.
 * @returns A synchronous verifier; it hands back no principal.
 * @throws {TypeError} When the list is empty or holds an empty or non-string token.
 * @example
 * ```ts
 * const verifier = createStaticTokenVerifier(['s3cr3t-token']);
 * verifier.verify('s3cr3t-token', { signal: AbortSignal.timeout(1000) }); // { valid: true }
 * ```
 */
export function createStaticTokenVerifier(tokens: Iterable<string>): TokenVerifier {
  const accepted = [...tokens];
  if (accepted.length === 0)
    throw new TypeError('createStaticTokenVerifier needs at least one token');
  for (const token of accepted) {
    if (typeof token !== 'string' || token === '') {
      throw new TypeError('createStaticTokenVerifier takes non-empty string tokens');
    }
  }
  return {
    verify(token: string): TokenVerdict {
      let matched = 0;
      for (const secret of accepted) matched |= Number(equalsInConstantTime(token, secret));
      return matched === 1 ? ACCEPTED : REJECTED;
    },
  };
}

function equalsInConstantTime(presented: string, secret: string): boolean {
  // Deliberately no early return: accumulate every difference, including the length's. A token
  // of another length is compared with itself, so the loop is the same whatever the secret.
  const other = presented.length === secret.length ? secret : presented;
  let difference = presented.length ^ secret.length;
  for (let i = 0; i < presented.length; i++) {
    difference |= presented.charCodeAt(i) ^ other.charCodeAt(i);
  }
  return difference === 0;
}
