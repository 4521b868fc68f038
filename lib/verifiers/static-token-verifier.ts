import { B64TOKEN, B64TOKEN_RULE } from '../operation/bearer-token.ts';
import type { TokenVerdict, TokenVerifier } from '../types.ts';

/**
 * Creates a `TokenVerifier` that accepts a fixed list of bearer tokens.
 *
 * A presented token is compared with every accepted one in time that depends only on the
 * lengths, never on how much of a secret matched. It answers synchronously, hands back no
 * principal, and refuses with the reason `unknown_token`.
 *
 * @param tokens The accepted tokens: at least one, each an RFC 6750 `b64token`.
 * @returns The verifier.
 * @throws {TypeError} When `tokens` is one string or no list, is empty, or holds a token that is
 *   not a `b64token`, which no client could present.
 * @example
 * ```ts
 * import { createStaticTokenVerifier } from 'plant-store';
 *
 * const verifier = createStaticTokenVerifier(['s3cr3t']);
 * verifier.verify('s3cr3t', { signal: AbortSignal.timeout(1000) }); // { valid: true }
 * ```
 */
export function createStaticTokenVerifier(
  tokens: readonly string[] | ReadonlySet<string>,
): TokenVerifier {
  if (typeof tokens === 'string' || typeof tokens?.[Symbol.iterator] !== 'function') {
    throw new TypeError(
      "createStaticTokenVerifier takes a list of tokens, not one string: createStaticTokenVerifier(['s3cr3t'])",
    );
  }
  const secrets = Array.from(tokens, (token) => {
    if (typeof token !== 'string' || !B64TOKEN.test(token)) {
      throw new TypeError(`createStaticTokenVerifier takes bearer tokens ${B64TOKEN_RULE}`);
    }
    return token;
  });
  if (secrets.length === 0) {
    throw new TypeError('createStaticTokenVerifier needs at least one token');
  }
  // Made here rather than at load, so a host that never calls this bundles none of it.
  const accepted: TokenVerdict = Object.freeze({ valid: true });
  const rejected: TokenVerdict = Object.freeze({ valid: false, reason: 'unknown_token' });
  return {
    verify(token: string): TokenVerdict {
      // Compared with every secret, with no stop at a match: the time says nothing of which.
      let matched = false;
      for (const secret of secrets) matched = equalsInConstantTime(token, secret) || matched;
      return matched ? accepted : rejected;
    },
  };
}

// A length is no secret: another length answers at once (as Go's `subtle.ConstantTimeCompare`).
function equalsInConstantTime(presented: string, secret: string): boolean {
  if (presented.length !== secret.length) return false;
  let difference = 0;
  for (let i = 0; i < secret.length; i++) {
    difference |= presented.charCodeAt(i) ^ secret.charCodeAt(i);
  }
  return difference === 0;
}
