// jose fetches and checks the key set; this decides when to fetch, and which keys a token may
// still use through the key server's outage, so that an outage never means a fetch per request.

import { createLocalJWKSet, createRemoteJWKSet, errors, type RemoteJWKSetOptions } from 'jose';
import type { FixedKey, JwksTiming } from './jwt-options.ts';

/** What a `createJwtVerifier` verifier knows of its keys, for a readiness check. */
export interface JwtKeyStatus {
  /** Whether tokens can be checked now: `fixed`, `fresh` or `stale` keys. */
  readonly ready: boolean;
  /**
   * `fixed` (the `key` option), `fresh`, `stale` (past `cacheMaxAge`, still used), `expired` (past
   * `maxStaleAge`, unused) or `none` (no fetch has succeeded yet).
   */
  readonly keys: 'fixed' | 'fresh' | 'stale' | 'expired' | 'none';
  /** The age of the keys in use, in milliseconds since the fetch that brought them. */
  readonly ageMs?: number;
  /** The last JWKS fetch that ended: whether it succeeded, how long ago, and why it failed. */
  readonly lastFetch?: { readonly ok: boolean; readonly ageMs: number; readonly error?: string };
}

export type KeyResolver = (header: Record<string, unknown>, token: unknown) => Promise<FixedKey>;

/** A source of keys: how to find one, what state it is in, and a fetch on demand. */
export interface KeySource {
  /** Finds the key for a token's header; throws when the token could not be checked. */
  readonly resolve: KeyResolver;
  /** The state of the keys; starts a due background refetch, as a request would. */
  status(): JwtKeyStatus;
  /** Fetches the keys now (joining a fetch under way); rejects with the fetch's error. */
  reload(): Promise<void>;
}

type LocalKeys = ReturnType<typeof createLocalJWKSet>;
type Fetched = { readonly local: LocalKeys; readonly fetchedAt: number };

function lookUp(fetched: Fetched, header: Record<string, unknown>, token: unknown) {
  return fetched.local(header as Parameters<LocalKeys>[0], token as Parameters<LocalKeys>[1]);
}

/** The key source of a remote JWKS; it fetches nothing until asked. */
export function createJwksKeys(
  url: URL,
  remote: RemoteJWKSetOptions,
  timing: JwksTiming,
): KeySource {
  const { cooldownDuration, cacheMaxAge, maxStaleAge } = timing;
  // jose's resolver would fetch on the request path once the keys are old; only its fetch is used.
  const jwks = createRemoteJWKSet(url, remote);
  let keys: Fetched | undefined;
  let last: { readonly ok: boolean; readonly at: number; readonly error?: unknown } | undefined;
  let pending: Promise<void> | undefined;

  const fetchKeys = (): Promise<void> => {
    pending ??= jwks
      .reload()
      .then(
        () => {
          const at = Date.now();
          keys = { local: createLocalJWKSet(jwks.jwks() ?? { keys: [] }), fetchedAt: at };
          last = { ok: true, at };
        },
        (error: unknown) => {
          last = { ok: false, at: Date.now(), error };
          throw error;
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  const failedRecently = (now: number): boolean =>
    last !== undefined && !last.ok && now - last.at < cooldownDuration;

  const usable = (now: number): boolean =>
    keys !== undefined && now - keys.fetchedAt <= maxStaleAge;

  const refreshIfDue = (now: number): void => {
    if (pending !== undefined || failedRecently(now)) return;
    if (keys !== undefined && now - keys.fetchedAt < cacheMaxAge) return;
    // Its failure is reported through status() and to the next token that needs a fetch.
    fetchKeys().catch(() => {});
  };

  const resolve: KeyResolver = async (header, token) => {
    const now = Date.now();
    if (!usable(now)) {
      if (pending === undefined && failedRecently(now)) throw last?.error;
      await fetchKeys();
    } else {
      refreshIfDue(now);
    }
    const current = keys as Fetched;
    try {
      return await lookUp(current, header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // An unknown kid: the key set may have rotated. Fetch again, at most once per cooldown;
      // while the key server fails, the token could not be checked (thrown), never invalid.
      if (keys !== current) return lookUp(keys as Fetched, header, token);
      if (pending === undefined) {
        if (failedRecently(now)) throw last?.error;
        if (now - current.fetchedAt < cooldownDuration) throw error;
      }
      await fetchKeys(); // joins the fetch under way, or starts one
      return lookUp(keys as Fetched, header, token);
    }
  };

  return {
    resolve,
    status(): JwtKeyStatus {
      const now = Date.now();
      refreshIfDue(now);
      const lastFetch =
        last === undefined
          ? undefined
          : {
              ok: last.ok,
              ageMs: now - last.at,
              ...(last.ok ? {} : { error: describe(last.error) }),
            };
      if (keys === undefined) return { ready: false, keys: 'none', lastFetch };
      const ageMs = now - keys.fetchedAt;
      const state = ageMs > maxStaleAge ? 'expired' : ageMs >= cacheMaxAge ? 'stale' : 'fresh';
      return { ready: state !== 'expired', keys: state, ageMs, lastFetch };
    },
    reload: fetchKeys,
  };
}

/** A fetch error in one line: jose's message, or the network error under `fetch failed`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const detail = cause?.message || (cause as { code?: string } | undefined)?.code;
  return detail ? `${error.message}: ${detail}` : error.message;
}
