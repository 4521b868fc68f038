/** A plant as the API returns it: the specification's `Plant` schema. */
export interface Plant {
  /** The name: any well-formed Unicode string without U+0000, `''` included. */
  readonly name: string;
  /** The tag, a type of plant; absent when none was sent (a repository may hand back `null`). */
  readonly tag?: string | null | undefined;
}

/**
 * A plant with the id its creator chose: the specification's `NewPlant` schema.
 * @typeParam Id A `bigint` wherever the store hands a plant on; any `PlantIdInput` to the client.
 */
export interface NewPlant<Id extends PlantIdInput = bigint> {
  /** The caller's id, exact over the whole int64 range. */
  readonly id: Id;
  /** The name, exactly as the client sent it. */
  readonly name: string;
  /** The tag, exactly as the client sent it; absent when it sent none. */
  readonly tag?: string;
}

/**
 * An int64 id as a caller may hold it: a `bigint`, a safe-integer `number` or a decimal string
 * such as `'9223372036854775807'`. Each goes on the wire exactly.
 */
export type PlantIdInput = bigint | number | string;

/** The body of every error answer: the specification's `Error` schema. */
export interface ErrorBody {
  /** The HTTP status. */
  readonly error: number;
  /** The text for a person saying what is wrong. */
  readonly message: string;
}

/**
 * What `PlantRepository.create` reports: stored, or the plant already under the id, which the
 * store compares with the request for a replay (`200`) or a conflict (`409`).
 */
export type CreatePlantOutcome =
  { readonly created: true } | { readonly created: false; readonly existing: Plant };

/**
 * What a repository receives beside the plant.
 * @typeParam Principal What the store's `TokenVerifier` hands back for an accepted token.
 */
export interface PlantRepositoryContext<Principal = unknown> extends TokenVerifierContext {
  /** The principal the `TokenVerifier` handed back for this request's token, if any. */
  readonly principal?: Principal | undefined;
}

/**
 * The storage behind the store: one atomic insert-if-absent.
 *
 * That one method is enough for the contract's replay, `409` and concurrent-create rules on any
 * store (in SQL, `INSERT ... ON CONFLICT DO NOTHING`, then a read of the existing row). A throw
 * is a `500` for `onError`; a `PlantApiError` says more: `ERR_STORE_FULL` (`507`),
 * `ERR_STORE_UNAVAILABLE` (`503` with `Retry-After`).
 *
 * @example
 * ```ts
 * import type { Plant, PlantRepository } from 'plant-store';
 *
 * const plants = new Map<bigint, Plant>();
 * const repository: PlantRepository = {
 *   create(plant) {
 *     const existing = plants.get(plant.id);
 *     if (existing) return { created: false, existing };
 *     plants.set(plant.id, { name: plant.name, tag: plant.tag });
 *     return { created: true };
 *   },
 * };
 * ```
 */
export interface PlantRepository<Principal = unknown> {
  /**
   * The insert: stores `plant` if its id is free, else hands back the plant stored under it.
   * Atomic: two concurrent calls for one id never both report `created: true`.
   * @param plant The plant to store.
   * @param context The request's signal, head, host and principal.
   * @returns The outcome, or a promise of it.
   */
  create(
    plant: NewPlant,
    context: PlantRepositoryContext<Principal>,
  ): CreatePlantOutcome | Promise<CreatePlantOutcome>;
}

/**
 * A `TokenVerifier`'s verdict: accepted, with the principal the repository receives, or not.
 * @typeParam Principal What an accepted token stands for: a user, a JWT's claims.
 */
export type TokenVerdict<Principal = unknown> =
  | { readonly valid: true; readonly principal?: Principal | undefined }
  | { readonly valid: false; readonly reason?: TokenRejectionReason | undefined };

/**
 * Why a verifier refused a token, for `onTokenRejected` and the diagnostics channel; the client
 * gets only the `401`.
 * - `expired`, `not_yet_valid`: past its `exp`, before its `nbf`.
 * - `wrong_issuer`, `wrong_audience`: an `iss` or `aud` the verifier does not accept.
 * - `unknown_key`: signed by no key it has, or with an algorithm it does not allow.
 * - `bad_signature`: the signature does not match.
 * - `malformed`: not a token it can read, or missing a claim it requires.
 * - `unknown_token`: not one of the static verifier's tokens.
 */
export type TokenRejectionReason =
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'unknown_key'
  | 'bad_signature'
  | 'malformed'
  | 'unknown_token';

/** What a verifier (and a repository) receives beside the token. */
export interface TokenVerifierContext {
  /** The signal that fires when the client goes away or the store's deadline passes. */
  readonly signal: AbortSignal;
  /** The request's method, URL and headers (never its body); absent outside a store (a test). */
  readonly request?: RequestHead | undefined;
  /**
   * The host's own object for the request, so auth it did need not be redone: Fastify's
   * `request`, Express's `req`, or the second argument of `fetch` (a Hono context).
   */
  readonly host?: unknown;
}

/** A request as collaborators see it: its method, URL and headers, made when first read. */
export interface RequestHead {
  /** The HTTP method. */
  readonly method: string;
  /** The request's URL; behind `plant-store/node`, made from the `Host` header and the target. */
  readonly url: string;
  /** The request's headers. */
  readonly headers: Headers;
}

/**
 * The auth behind the store: decides whether a well-formed bearer token is accepted.
 *
 * Answer `{ valid: false, reason? }` for a token you refuse (`401`); the reason goes to
 * `onTokenRejected`, never to the client. Throw only when the token could not be checked at all
 * (a key server down): that is a `500`, never an accepted request.
 *
 * @example
 * ```ts
 * import type { TokenVerifier } from 'plant-store';
 *
 * const verifier: TokenVerifier<{ user: string }> = {
 *   verify: (token) =>
 *     token === 's3cr3t' ? { valid: true, principal: { user: 'ada' } } : { valid: false },
 * };
 * ```
 */
export interface TokenVerifier<Principal = unknown> {
  /**
   * The check of one token.
   * @param token The `b64token` after `Bearer `.
   * @param context The request's signal, head and host.
   * @returns The verdict, or a promise of it.
   */
  verify(
    token: string,
    context: TokenVerifierContext,
  ): TokenVerdict<Principal> | Promise<TokenVerdict<Principal>>;
}

/**
 * Options of `createPlantStore`.
 * @typeParam Principal What the verifier hands back and the repository receives, typed.
 */
export interface CreatePlantStoreOptions<Principal = unknown> {
  /**
   * The storage.
   * @default createMemoryRepository()
   */
  readonly repository?: PlantRepository<Principal> | undefined;
  /** The auth; required. */
  readonly verifier: TokenVerifier<Principal>;
  /**
   * The largest request body accepted, in bytes; a larger one gets `413`.
   * @default 102400
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * The deadline of one create, in milliseconds; past it the client gets `503` and the
   * collaborators' signal fires.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * The callback that hears every fault (`500`), deadline (`ERR_VERIFIER_TIMEOUT`,
   * `ERR_REPOSITORY_TIMEOUT`) and `ERR_STORE_UNAVAILABLE`, once per error object, with the first
   * request it failed. Its own failure goes to stderr.
   * @default the request's own logger (`context.host.log.error`), else `console.error`
   */
  readonly onError?: ((error: unknown, context: ErrorContext) => void) | undefined;
  /**
   * The callback that hears every token the verifier refused, with its reason if it gave one; a
   * missing or malformed header is not one. Its own failure goes to `onError`.
   * @default undefined
   */
  readonly onTokenRejected?:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
  /**
   * The CORS policy for browser pages of other origins: `createCors({ origins })` from
   * `plant-store/cors`. Off when absent (a preflight gets `405`); a host's own CORS middleware is
   * preferable.
   * @default undefined
   */
  readonly cors?: Cors | undefined;
  /**
   * The path the routes are under: `'/api'` serves `/api/plants`. A framework's mount prefix goes
   * in front of it.
   * @default the path of `publicUrl`, else '/'
   */
  readonly basePath?: string | undefined;
  /**
   * The absolute URL clients reach the API at, named as the OpenAPI document's server; its path
   * is the base path unless `basePath` says otherwise.
   * @default undefined (the document's server is `.`, relative to where it is served)
   */
  readonly publicUrl?: string | undefined;
  /** @deprecated Retired, and a `TypeError`: set `publicUrl` to name an absolute server. */
  readonly trustProxy?: never;
}

/** A CORS policy from `createCors` (`plant-store/cors`): opaque, so only a checked one is taken. */
export interface Cors {
  /** The brand that marks a policy `createCors` made. */
  readonly kind: 'plant-store/cors';
}

/** What `onError` learns beside the error: the request it happened in. */
export interface ErrorContext {
  /**
   * The request's `X-Request-Id` if it is 1-200 visible ASCII characters (or `serve` made it), so a
   * log line never carries control characters or kilobytes from a client.
   */
  readonly requestId?: string | undefined;
  /** The host's own object for the request (see `TokenVerifierContext.host`): its logger, say. */
  readonly host?: unknown;
}

/** A web-standard request handler, such as `PlantStore.fetch`, as `plant-store/node` takes it. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A plant store, as `createPlantStore` makes it: the operation and a router around it. */
export interface PlantStore {
  /** The create-a-plant operation, on any path: it does not look at the URL. */
  readonly handleCreatePlant: (request: Request, host?: unknown) => Promise<Response>;
  /**
   * The whole API: `POST /plants`, `GET /openapi.json`, `404`/`405` for the rest. `host` reaches
   * the collaborators as `context.host` (a Hono context: `store.fetch(c.req.raw, c)`).
   */
  readonly fetch: (request: Request, host?: unknown) => Promise<Response>;
}

/**
 * The default of `maxBodyBytes`: 100 KiB (102400 bytes); a larger body gets `413`.
 *
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier, DEFAULT_MAX_BODY_BYTES } from 'plant-store';
 *
 * const store = createPlantStore({
 *   verifier: createStaticTokenVerifier(['s3cr3t']),
 *   maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES,
 * });
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES = 102_400;
/**
 * The default of `timeoutMs`: 10 s (10000 ms); past it a create is a `503`.
 *
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier, DEFAULT_TIMEOUT_MS } from 'plant-store';
 *
 * const store = createPlantStore({
 *   verifier: createStaticTokenVerifier(['s3cr3t']),
 *   timeoutMs: DEFAULT_TIMEOUT_MS / 2,
 * });
 * ```
 */
export const DEFAULT_TIMEOUT_MS = 10_000;
