/**
 * The public types of plant-store: the plant, the two collaborators a host plugs in
 * (`PlantRepository` for storage, `TokenVerifier` for auth) and the store's options.
 *
 * @module
 */

/** A plant as the API returns it: the specification's `Plant` schema. */
export interface Plant {
  /** The name of the plant: any well-formed Unicode string without U+0000, `''` included. */
  readonly name: string;
  /**
   * The tag, a type of plant; absent (or `undefined`) when the client sent none. A repository
   * may also hand back `null` for no tag, as SQL stores it.
   */
  readonly tag?: string | null | undefined;
}

/**
 * A plant with the id its creator chose: the specification's `NewPlant` schema.
 *
 * @typeParam Id How the id is held: a `bigint` wherever the store hands a plant on; what a caller
 *   of `plant-store/client` may pass (`PlantIdInput`).
 */
export interface NewPlant<Id extends PlantIdInput = bigint> {
  /** The caller's id, exact over the whole int64 range (a `bigint` once the store has read it). */
  readonly id: Id;
  /** The name of the plant, exactly as the client sent it. */
  readonly name: string;
  /** The tag exactly as the client sent it; absent when it sent none. */
  readonly tag?: string;
}

/**
 * An int64 id as a caller may hold it: a `bigint`, a `number` that is a safe integer, or a
 * decimal string such as `'9223372036854775807'`. Each goes on the wire exactly.
 */
export type PlantIdInput = bigint | number | string;

/**
 * The body of every error answer: the specification's `Error` schema.
 */
export interface ErrorBody {
  /** The HTTP status, as an int32. */
  readonly error: number;
  /** Text for a person saying what is wrong. */
  readonly message: string;
}

/**
 * What `PlantRepository.create` reports: the plant was stored, or the id was already taken and
 * this is the plant stored under it (unchanged). The handler decides between an idempotent
 * replay (`200`) and a conflict (`409`) by comparing `existing` with what the client sent.
 */
export type CreatePlantOutcome =
  { readonly created: true } | { readonly created: false; readonly existing: Plant };

/**
 * What a repository receives beside the plant.
 *
 * @typeParam Principal What the store's `TokenVerifier` hands back for an accepted token.
 */
export interface PlantRepositoryContext<Principal = unknown> extends TokenVerifierContext {
  /** The principal the `TokenVerifier` handed back for this request, if it gave one. */
  readonly principal?: Principal | undefined;
}

/**
 * The storage behind the store. One method, an atomic insert-if-absent, is enough for the
 * contract's idempotent replay, `409` and concurrent-create rules on any backing store: a SQL
 * `INSERT ... ON CONFLICT DO NOTHING` followed by a read of the existing row fits it.
 *
 * Throwing (or rejecting) makes the request a `500`; the error goes to the store's `onError`.
 * Two `PlantApiError`s say more: `ERR_STORE_FULL` (`507`) and `ERR_STORE_UNAVAILABLE` (`503` with
 * `Retry-After`, reported too).
 *
 * @example
 * ```ts
 * const plants = new Map<bigint, Plant>();
 * const repository: PlantRepository = {
 *   async create(plant) {
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
   * The atomic insert-if-absent: store `plant` when its id is free and report `created: true`;
   * otherwise store nothing and hand back the plant already stored under that id. Two
   * concurrent calls for one id must never both report `created: true`. May answer with the
   * outcome itself (a store that decides in memory) or with a promise of it.
   */
  create(
    plant: NewPlant,
    context: PlantRepositoryContext<Principal>,
  ): CreatePlantOutcome | Promise<CreatePlantOutcome>;
}

/**
 * The verdict of a `TokenVerifier`: accepted, with whatever the verifier learned about the
 * caller (the principal, which reaches the repository), or not.
 *
 * @typeParam Principal What an accepted token stands for: a user, a JWT's claims.
 */
export type TokenVerdict<Principal = unknown> =
  | { readonly valid: true; readonly principal?: Principal | undefined }
  | { readonly valid: false; readonly reason?: TokenRejectionReason | undefined };

/**
 * Why a verifier refused a token, when it says (`{ valid: false, reason }`). The client still
 * gets only the contract's `401`; the reason goes to the store's `onTokenRejected` and to the
 * `plant-store:create` diagnostics channel.
 *
 * - `expired`: past its `exp`.
 * - `not_yet_valid`: before its `nbf`.
 * - `wrong_issuer`: another `iss` than the one configured.
 * - `wrong_audience`: no `aud` the store accepts.
 * - `unknown_key`: signed by no key the verifier has (or with an algorithm it does not allow).
 * - `bad_signature`: the signature does not match.
 * - `malformed`: not a token the verifier can read, or missing a claim it requires.
 * - `unknown_token`: not one of the tokens the verifier accepts (the static verifier).
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
  /**
   * The request's method, URL and headers, read-only; never its body, which the store reads.
   * Absent when the collaborator is called other than by a store (a test, the conformance kit).
   */
  readonly request?: RequestHead | undefined;
  /**
   * What the host has for this request, so that auth it already did need not be done again:
   * Fastify's `request` (`request.user` from `@fastify/jwt`), Express's `req` (`req.user` from
   * a middleware), or what the host passed as the second argument of `fetch` (a Hono context:
   * `store.fetch(c.req.raw, c)`; `Deno.serve`, `Bun.serve` and Workers pass their own).
   */
  readonly host?: unknown;
}

/** A request as collaborators see it: its method, URL and headers, made when first read. */
export interface RequestHead {
  /** The HTTP method. */
  readonly method: string;
  /** The request's URL; behind `plant-store/node`, made from its `Host` and target. */
  readonly url: string;
  /** The request's headers. */
  readonly headers: Headers;
}

/**
 * The auth behind the store: decides whether a well-formed bearer token is accepted.
 *
 * Return `{ valid: false }` for a token that is not accepted (`401` with
 * `error="invalid_token"`), with a `reason` if you know why (for the host's `onTokenRejected`
 * and the diagnostics channel; the client never sees it). Throw only when the token could not be checked at all (a key server
 * down, say): that becomes a `500`, never an accepted request.
 */
export interface TokenVerifier<Principal = unknown> {
  /** The check of one token (the `b64token` after `Bearer `); may be async. */
  verify(
    token: string,
    context: TokenVerifierContext,
  ): TokenVerdict<Principal> | Promise<TokenVerdict<Principal>>;
}

/**
 * Options of `createPlantStore`.
 *
 * @typeParam Principal What the verifier hands back and the repository receives, so a JWT's
 *   claims, say, reach the repository typed.
 */
export interface CreatePlantStoreOptions<Principal = unknown> {
  /**
   * The storage.
   * @default createMemoryRepository()
   */
  readonly repository?: PlantRepository<Principal> | undefined;
  /** The auth: required, a store never runs without one. */
  readonly verifier: TokenVerifier<Principal>;
  /**
   * The largest request body accepted, in bytes; larger bodies get `413`.
   * @default 102400
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * The deadline for one create, in milliseconds, from the moment the request arrives; past it
   * the client gets `503` and the repository's signal fires.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * The callback that hears about every unexpected error (a repository or verifier that threw,
   * or answered the wrong shape: the client sees `500 internal error`) and every create that
   * ended at its deadline (`ERR_VERIFIER_TIMEOUT` or `ERR_REPOSITORY_TIMEOUT`: the client sees
   * `503`), and a repository's `ERR_STORE_UNAVAILABLE` (`503` too). An error object is heard
   * once however many creates it failed (a batch's statement fails each of its creates with one
   * error). A throw or a rejection of its own is swallowed. The context names the request (the
   * first one the error failed), for a log line that matches the access log's.
   * @default the host request's own logger when it has one (`context.host.log.error`, as
   *   Fastify's request and pino-http's `req` have), else `console.error`
   */
  readonly onError?: ((error: unknown, context: ErrorContext) => void) | undefined;
  /**
   * The callback that hears about every token the verifier refused, with its reason when the
   * verifier gave one (`{ valid: false, reason }`): the client only ever sees the contract's
   * `401`. A missing or malformed `Authorization` header is not a refused token and is not
   * reported here. A throw or a rejection of its own is swallowed.
   * @default undefined
   */
  readonly onTokenRejected?:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
  /**
   * CORS, for browser pages of other origins: `createCors({ origins })` from `plant-store/cors`.
   * Off when absent: then no response carries a CORS header and an `OPTIONS` preflight gets
   * `405`. Where the host has CORS middleware of its own, prefer it and leave this off.
   * @default undefined
   */
  readonly cors?: Cors | undefined;
  /**
   * The path the routes are under: `'/api'` serves `/api/plants` and `/api/openapi.json`, and
   * the document's server ends with it. Starts with `/`, no trailing slash, no query; `'/'` is
   * the root. Where a framework mounts the store under a prefix (`plant-store/fastify`,
   * `plant-store/express`), the prefix goes in front of it.
   * @default the path of `publicUrl`, else '/'
   */
  readonly basePath?: string | undefined;
  /**
   * The URL clients reach the API at, such as `https://api.example.com/v1`: the OpenAPI
   * document names it as its server instead of the relative one. An absolute http(s) URL with
   * no query; its path is also the base path unless `basePath` says otherwise (set
   * `basePath: '/'` behind a proxy that strips the path).
   * @default undefined (the document's server is relative: the base path, or `/`)
   */
  readonly publicUrl?: string | undefined;
  /**
   * Retired: the document's server is relative, right behind any proxy, and no request header
   * enters it. A store given this option throws a `TypeError` naming `publicUrl`.
   * @deprecated Set `publicUrl` to name an absolute server.
   */
  readonly trustProxy?: never;
}

/**
 * A store's CORS policy, as `createCors` from `plant-store/cors` makes it: opaque, so that only
 * a checked policy can be handed to `createPlantStore({ cors })`.
 */
export interface Cors {
  /** What this value is. */
  readonly kind: 'plant-store/cors';
}

/** What `onError` learns beside the error: the request it happened in. */
export interface ErrorContext {
  /**
   * The request's `X-Request-Id`: the client's when it is 1-200 visible ASCII characters, or
   * the one a server such as `serve({ requestIds: true })` gave it. Any other id a client sends
   * is not handed on (`serve` makes one in its place; called directly, the store leaves this
   * undefined), so a log line never carries control characters or kilobytes from a client.
   */
  readonly requestId?: string | undefined;
  /** What the host has for the request (see `TokenVerifierContext.host`): its logger, say. */
  readonly host?: unknown;
}

/** A web-standard request handler, such as `PlantStore.fetch`, as `plant-store/node` takes it. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A plant store: the operation and a router around it. */
export interface PlantStore {
  /**
   * The create-a-plant operation for any path a host mounts it on: it does not look at the URL.
   */
  readonly handleCreatePlant: (request: Request, host?: unknown) => Promise<Response>;
  /**
   * The whole API: `POST /plants`, `GET /openapi.json` and `404`/`405` for the rest. Fits
   * `Deno.serve`, `Bun.serve` and `export default { fetch }` hosts. `host`, when given, reaches
   * the collaborators as `context.host` (a Hono context: `store.fetch(c.req.raw, c)`).
   */
  readonly fetch: (request: Request, host?: unknown) => Promise<Response>;
}
