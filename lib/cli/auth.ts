/**
 * The standalone server's verifier, as the auth settings ask: a fixed token list, one random
 * token (printed once), or JWT mode, where jose is loaded and the JWKS is fetched before anything
 * listens, so that a wrong URL or a key server away is found at start.
 *
 * @module
 */

import type { TokenVerifier } from '../index.ts';
import { createStaticTokenVerifier } from '../index.ts';
import type { JwtAlgorithm } from '../jwt.ts';
import type { AuthSettings } from './auth-settings.ts';
import { fail, oneLine } from './fail.ts';
import { loadJwtVerifier } from './load-optional.ts';

/** How long the JWKS may take to arrive at start. */
const JWKS_START_TIMEOUT_MS = 5_000;

/** The verifier, the token made for it (random-token mode) and what the start-up line says of it. */
export interface VerifierChoice {
  readonly verifier: TokenVerifier;
  readonly generatedToken?: string;
  /** The auth mode, for the start-up line: never a secret. */
  readonly mode: string;
}

/**
 * Creates the verifier the settings ask for; in JWT mode jose is loaded here, and only here,
 * and the JWKS fetched. Prints one line and exits on failure: 1 for what cannot be loaded or
 * reached, 2 for JWT settings jose refuses.
 */
export async function createVerifier(auth: AuthSettings): Promise<VerifierChoice> {
  if (auth.kind === 'tokens') {
    return {
      verifier: createStaticTokenVerifier(auth.tokens),
      mode: `static tokens (${auth.tokens.length})`,
    };
  }
  if (auth.kind === 'random-token') {
    // Web Crypto rather than node:crypto: 32 random bytes, base64url (a valid RFC 6750 b64token).
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
  let verifier: TokenVerifier;
  try {
    const { jwksUrl, issuer, audience } = auth;
    // Names from the environment: createJwtVerifier checks each at run time.
    const algorithms = auth.algorithms as readonly JwtAlgorithm[] | undefined;
    verifier = jwt.createJwtVerifier({ jwksUrl, issuer, audience, algorithms });
  } catch (error) {
    // createJwtVerifier refuses what the settings parser cannot check without jose: `none`,
    // HMAC and unknown algorithm names. Its TypeError says which.
    fail(2, `bad JWT settings: ${oneLine(error)}`);
  }
  await fetchJwksAtStart(auth.jwksUrl);
  return { verifier, mode: `JWT (keys from ${auth.jwksUrl}, issuer ${auth.issuer})` };
}

/** Fetches the JWKS once, so that a server that cannot verify any token never starts. */
async function fetchJwksAtStart(url: string): Promise<void> {
  let problem: string | undefined;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(JWKS_START_TIMEOUT_MS) });
    const body = response.ok ? ((await response.json()) as { keys?: unknown }) : undefined;
    if (!response.ok) problem = `it answered ${response.status}`;
    else if (!Array.isArray(body?.keys)) problem = 'it is not a JSON Web Key Set (no "keys")';
  } catch (error) {
    problem = oneLine(error);
  }
  if (problem !== undefined) fail(1, `cannot fetch the JWKS at ${url}: ${problem}`);
}
