/** A plant as the API returns it: the specification's `Plant` schema. */
export interface Plant {
  /** Any well-formed Unicode string without U+0000, `''` included. */
  readonly name: string;
  /** The type of plant; absent when none was sent (a repository may hand back `null`). */
  readonly tag?: string | null | undefined;
}

/**
 * A plant with the id its creator chose: the specification's `NewPlant` schema.
 * @typeParam Id A `bigint` wherever the store hands a plant on; any `PlantIdInput` to the client.
 */
export interface NewPlant<Id extends PlantIdInput = bigint> {
  /** Exact over the whole int64 range. */
  readonly id: Id;
  readonly name: string;
  readonly tag?: string;
}

/** An int64 id as a caller may hold it: a `bigint`, a safe-integer `number` or a decimal string. */
export type PlantIdInput = bigint | number | string;

/** The body of every error answer: the specification's `Error` schema. */
export interface ErrorBody {
  /** The HTTP status. */
  readonly error: number;
  readonly message: string;
}

/**
 * What `PlantRepository.create` reports: stored, or the plant already under the id, which the
 * store compares with the request for a replay (`200`) or a conflict (`409`).
 */
export type CreatePlantOutcome =
  { readonly created: true } | { readonly created: false; readonly existing: Plant };

/** What a repository receives beside the plant. */
export interface PlantRepositoryContext<Principal = unknown> extends TokenVerifierContext {
  /** What the `TokenVerifier` handed back for this request's token, if anything. */
  readonly principal?: Principal | undefined;
}

/**
 * The storage behind the store. A throw is a `500` for `onError`; a `PlantApiError` says more:
 * `ERR_STORE_FULL` (`507`), `ERR_STORE_UNAVAILABLE` (`503` with `Retry-After`).
 */
export interface PlantRepository<Principal = unknown> {
  /**
   * Stores `plant` if its id is free, else hands back the plant stored under it: atomic, so two
   * concurrent calls for one id never both report `created: true`.
   */
  create(
    plant: NewPlant,
    context: PlantRepositoryContext<Principal>,
  ): CreatePlantOutcome | Promise<CreatePlantOutcome>;
}

/** A `TokenVerifier`'s verdict: accepted, with the principal the repository receives, or not. */
export type TokenVerdict<Principal = unknown> =
  | { readonly valid: true; readonly principal?: Principal | undefined }
  | { readonly valid: false; readonly reason?: TokenRejectionReason | undefined };

/**
 * Why a verifier refused a token, for `onTokenRejected` and the diagnostics channel; the client
 * gets only the `401`. `unknown_key` includes an algorithm not allowed; `malformed`, a missing
 * required claim; `unknown_token` is the static verifier's.
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
  /** Fires when the client goes away or the store's deadline passes. */
  readonly signal: AbortSignal;
  /** Never the body, which the store reads; absent outside a store (a test, say). */
  readonly request?: RequestHead | undefined;
  /**
   * What the host has for the request, so auth it did need not be redone: Fastify's `request`,
   * Express's `req`, or the second argument of `fetch` (a Hono context).
   */
  readonly host?: unknown;
}

/** A request as collaborators see it, made when first read. */
export interface RequestHead {
  readonly method: string;
  /** Behind `plant-store/node`, made from the `Host` header and the target. */
  readonly url: string;
  readonly headers: Headers;
}

/**
 * The auth behind the store. Answer `{ valid: false, reason? }` for a token you refuse (`401`);
 * throw only when it could not be checked at all (a key server down): that is a `500`.
 */
export interface TokenVerifier<Principal = unknown> {
  /** Checks one token (the `b64token` after `Bearer `). */
  verify(
    token: string,
    context: TokenVerifierContext,
  ): TokenVerdict<Principal> | Promise<TokenVerdict<Principal>>;
}

/** Options of `createPlantStore`; `Principal` types what the verifier hands the repository. */
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
   * Hears every fault (`500`), deadline (`ERR_VERIFIER_TIMEOUT`, `ERR_REPOSITORY_TIMEOUT`) and
   * `ERR_STORE_UNAVAILABLE`, once per error object, with the first request it failed. Its own
   * failure goes to stderr.
   * @default the request's own logger (`context.host.log.error`), else `console.error`
   */
  readonly onError?: ((error: unknown, context: ErrorContext) => void) | undefined;
  /**
   * Hears every token the verifier refused, with its reason if it gave one; a missing or
   * malformed header is not one. Its own failure goes to `onError`.
   */
  readonly onTokenRejected?:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
  /**
   * CORS for browser pages of other origins: `createCors({ origins })` from `plant-store/cors`.
   * Off when absent (a preflight gets `405`); a host's own CORS middleware is preferable.
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
   * @default none: the document's server is relative
   */
  readonly publicUrl?: string | undefined;
  /** @deprecated Retired, and a `TypeError`: set `publicUrl` to name an absolute server. */
  readonly trustProxy?: never;
}

/** A CORS policy from `createCors` (`plant-store/cors`): opaque, so only a checked one is taken. */
export interface Cors {
  readonly kind: 'plant-store/cors';
}

/** What `onError` learns beside the error: the request it happened in. */
export interface ErrorContext {
  /**
   * The request's `X-Request-Id` if it is 1-200 visible ASCII characters (or `serve` made it), so a
   * log line never carries control characters or kilobytes from a client.
   */
  readonly requestId?: string | undefined;
  /** What the host has for the request (see `TokenVerifierContext.host`): its logger, say. */
  readonly host?: unknown;
}

/** A web-standard request handler, such as `PlantStore.fetch`, as `plant-store/node` takes it. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A plant store: the operation and a router around it. */
export interface PlantStore {
  /** The create-a-plant operation, on any path: it does not look at the URL. */
  readonly handleCreatePlant: (request: Request, host?: unknown) => Promise<Response>;
  /**
   * The whole API: `POST /plants`, `GET /openapi.json`, `404`/`405` for the rest. `host` reaches
   * the collaborators as `context.host` (a Hono context: `store.fetch(c.req.raw, c)`).
   */
  readonly fetch: (request: Request, host?: unknown) => Promise<Response>;
}
