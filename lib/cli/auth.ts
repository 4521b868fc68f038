/**
 * The standalone server's verifier: a fixed token list, one random token, or JWT mode, where
 * the JWKS is fetched before anything listens, so that a wrong URL or a key server away is found
 * at start.
 *
 * @module
 */

import type { TokenVerifier } from '../index.ts';
import { createStaticTokenVerifier } from '../index.ts';
import type { JwtAlgorithm, JwtVerifier } from '../jwt.ts';
import type { ReadinessCheck } from './admin-server.ts';
import type { AuthSettings } from './settings.ts';
import { redactUrl } from '../guards/redact-url.ts';
import { fail, oneLine } from './fail.ts';
import { loadJwtVerifier } from './load-optional.ts';

export interface VerifierChoice {
  readonly verifier: TokenVerifier;
  readonly generatedToken?: string;
  /** For the start-up line: never a secret. */
  readonly mode: string;
  readonly readiness?: ReadinessCheck;
}

/** Exits 1 for what cannot be loaded or reached, 2 for JWT settings jose refuses. */
export async function createVerifier(auth: AuthSettings): Promise<VerifierChoice> {
  if (auth.kind === 'tokens') {
    return {
      verifier: createStaticTokenVerifier(auth.tokens),
      mode: `static tokens (${auth.tokens.length})`,
    };
  }
  if (auth.kind === 'random-token') {
    // base64url is a valid RFC 6750 b64token.
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
    return {
      verifier: createStaticTokenVerifier([token]),
      generatedToken: token,
      mode: 'one random token, printed on stderr',
    };
  }
  let jwt: Awaited<ReturnType<typeof loadJwtVerifier>>;
  try {
    jwt = await loadJwtVerifier();
  } catch (error) {
    fail(
      1,
      `JWT mode needs the "jose" package, which cannot be loaded (install it: npm install jose): ${oneLine(error)}`,
    );
  }
  let verifier: JwtVerifier;
  try {
    const { jwksUrl, issuer, audience } = auth;
    const algorithms = auth.algorithms as readonly JwtAlgorithm[] | undefined;
    verifier = jwt.createJwtVerifier({ jwksUrl, issuer, audience, algorithms });
  } catch (error) {
    // What the settings parser cannot check without jose: `none`, HMAC, unknown names.
    fail(2, `bad JWT settings: ${oneLine(error)}`);
  }
  // Through the verifier, so that the keys it serves with are the ones /readyz reports.
  await verifier.reload().catch((error: unknown) => {
    fail(1, `cannot fetch the JWKS at ${redactUrl(auth.jwksUrl)}: ${oneLine(error)}`);
  });
  return {
    verifier,
    mode: `JWT (keys from ${redactUrl(auth.jwksUrl)}, issuer ${auth.issuer})`,
    readiness: {
      name: 'jwks',
      ready: async () => {
        const { lastFetch, ...keys } = verifier.status();
        if (lastFetch === undefined) return { ok: keys.ready, detail: keys };
        // The fetch error's text goes to the log, not to the unauthenticated admin port.
        const { error, ...fetched } = lastFetch;
        return {
          ok: keys.ready,
          detail: { ...keys, lastFetch: fetched },
          error:
            error === undefined ? undefined : new Error(`the last JWKS fetch failed: ${error}`),
        };
      },
    },
  };
}
