import type { TokenVerdict, TokenVerifier } from './types.ts';

const ACCEPTED: TokenVerdict = Object.freeze({ valid: true });
const REJECTED: TokenVerdict = Object.freeze({ valid: false });

/**
 * Creates a `TokenVerifier` that accepts a fixed list of bearer tokens.
 *
 * Every presented token is compared with every accepted one, each of the same length code unit
 * by code unit without an early exit, so the time taken depends only on the lengths and the
 * number of accepted tokens, never on how much of a secret it matched.
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
  const secrets = Array.from(tokens, (token) => {
    if (typeof token !== 'string' || token === '') {
      throw new TypeError('createStaticTokenVerifier takes non-empty string tokens');
    }
    return token;
  });
  if (secrets.length === 0) {
    throw new TypeError('createStaticTokenVerifier needs at least one token');
  }
  return {
    verify(token: string): TokenVerdict {
      let matched = 0;
      for (const secret of secrets) matched |= +equalsInConstantTime(token, secret);
      return matched === 1 ? ACCEPTED : REJECTED;
    },
  };
}

/**
 * Whether a token is a secret, in time that depends on the lengths only: as in Go's
 * `subtle.ConstantTimeCompare`, another length answers at once (a length is no secret), and the
 * same length compares every code unit without an early exit.
 */
function equalsInConstantTime(presented: string, secret: string): boolean {
  if (presented.length !== secret.length) return false;
  let difference = 0;
  for (let i = 0; i < secret.length; i++) {
    difference |= presented.charCodeAt(i) ^ secret.charCodeAt(i);
  }
  return difference === 0;
}
