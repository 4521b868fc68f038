/**
 * `createPlantStore`: the operation with the host's collaborators, as the two web-standard
 * handlers a host mounts, and the routes of `fetch`.
 *
 * @module
 */

import {
  type ErrorReply,
  errorReply,
  JSON_HEADERS,
  PlantApiError,
  replyResponse,
} from '../errors.ts';
import { callHook } from '../guards/call-hook.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { openApiJsonFor } from '../openapi/openapi-document.ts';
import { traced } from '../diagnostics/create-trace.ts';
import { collaboratorsOf } from '../operation/collaborator-answers.ts';
import { createOperation } from '../operation/create-plant.ts';
import { createDeadlines } from '../operation/deadlines.ts';
import { createMemoryRepository } from '../repositories/memory-repository.ts';
import type {
  CreatePlantStoreOptions,
  ErrorContext,
  PlantRepository,
  PlantStore,
  TokenVerifier,
} from '../types.ts';
import { apiLocationOf, documentServer, TRUST_PROXY_RETIRED } from './api-location.ts';
import { corsPolicyOf } from './cors-policy.ts';
import { recordRoutes } from './store-routes.ts';
import { pathOf } from './url-path.ts';
import { WebPlainRequest } from './web-request.ts';

/** The default of `maxBodyBytes`: 100 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 102_400;
/** The default of `timeoutMs`: 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;
// setTimeout fires at once for delays past 2^31 - 1 ms, so larger deadlines are refused.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The options `createPlantStore` takes: a misspelled one is refused, never silently ignored. */
const KNOWN_OPTIONS = [
  'repository',
  'verifier',
  'maxBodyBytes',
  'timeoutMs',
  'onError',
  'onTokenRejected',
  'cors',
  'basePath',
  'publicUrl',
];

/**
 * Creates a plant store: the specification's create-a-plant operation as a web-standard handler,
 * with the storage and auth the host plugs in.
 *
 * `handleCreatePlant` answers every request it gets as `POST /plants`, wherever the host mounts
 * it. `fetch` routes: `/plants` to the operation, `GET /openapi.json` to the OpenAPI document,
 * anything else to `404`; with `basePath`, both routes are under it (`/api/plants`). The
 * document's server is relative (`/`, or the base path), so it is right behind any proxy;
 * `publicUrl` fixes an absolute one.
 * With the `cors` option, both answer browsers of the allowed origins (a preflight `204`, the
 * CORS headers on every response to them). Every answer follows the behaviour contract:
 * checks in the order method, auth, body presence, media type, size, UTF-8 and JSON, shape,
 * then storage; every error an Error body `{ "error": <status>, "message": <text> }`.
 *
 * @param options The repository (default: in memory), the verifier (required), the body limit
 *   (default 100 KiB), the deadline (default 10 s), the `onError` callback, CORS (default off),
 *   and where the API lives (`basePath`, `publicUrl`).
 * @returns The store's `handleCreatePlant` and `fetch`.
 * @throws {TypeError} When the verifier is missing, an option is out of range, or an option's
 *   name is not one of these (a misspelled option would otherwise be silently ignored).
 * @example
 * ```ts
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 *
 * const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
 * const response = await store.fetch(
 *   new Request('http://localhost/plants', {
 *     method: 'POST',
 *     headers: { authorization: 'Bearer s3cr3t', 'content-type': 'application/json' },
 *     body: '{"id": 1, "name": "Monstera"}',
 *   }),
 * );
 * await response.json(); // { name: 'Monstera' }
 * ```
 */
export function createPlantStore<Principal = unknown>(
  options: CreatePlantStoreOptions<Principal>,
): PlantStore {
  const {
    repository = createMemoryRepository(),
    verifier,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    onError = logFault,
    onTokenRejected,
    cors,
    basePath,
    publicUrl,
  } = options ?? ({} as CreatePlantStoreOptions<Principal>);
  if (options !== null && typeof options === 'object' && 'trustProxy' in options) {
    throw new TypeError(TRUST_PROXY_RETIRED);
  }
  checkOptionNames('createPlantStore', options, KNOWN_OPTIONS);
  checkOptions(repository, verifier, maxBodyBytes, timeoutMs, onError);
  if (onTokenRejected !== undefined && typeof onTokenRejected !== 'function') {
    throw new TypeError('onTokenRejected must be a function');
  }
  const location = apiLocationOf(basePath, publicUrl);
  const policy = cors === undefined ? undefined : corsPolicyOf(cors);
  // One error object that fails many creates (a batch's statement) is one fault, heard once.
  const reported = new WeakSet<object>();
  function report(error: unknown, context: ErrorContext): void {
    if (typeof error === 'object' && error !== null) {
      if (reported.has(error)) return;
      reported.add(error);
    }
    // A broken onError must not turn a 500 into a crash: its own failure goes to stderr.
    callHook((fault: unknown) => onError(fault, context), error);
  }
  const collaborators = collaboratorsOf(verifier, repository);
  const operation = createOperation({
    collaborators,
    maxBodyBytes,
    timeoutMs,
    startDeadline: createDeadlines(timeoutMs),
    report,
    // A throw or a rejection of onTokenRejected is the host's bug: it goes to onError.
    tokenRejected:
      onTokenRejected === undefined
        ? undefined
        : (reason, context) =>
            callHook(
              (value: typeof reason) => onTokenRejected(value, context),
              reason,
              (error) => report(error, context),
            ),
  });
  // Decided once: with CORS off the operation runs bare, and a request costs no CORS work at all.
  const createPlant =
    policy?.wrap(traced(operation, collaborators)) ?? traced(operation, collaborators);
  const withCorsOn = policy !== undefined;

  function answer(request: Request, host: unknown, route: string | undefined): Promise<Response> {
    return new Promise((resolve) => {
      const input = new WebPlainRequest(request, withCorsOn, host, route);
      createPlant(input, (reply) => {
        input.release();
        resolve(replyResponse(reply));
      });
    });
  }

  function handleCreatePlant(request: Request, host?: unknown): Promise<Response> {
    return answer(request, host, undefined);
  }

  // Said once: a host that strips the store's base path would otherwise be told on every request.
  let strippedSaid = false;

  /** The routes under `base` (`''` for the root). */
  function fetchAt(base: string): (request: Request, host?: unknown) => Promise<Response> {
    const plants = `${base}/plants`;
    // The same for every request: no request header enters it.
    const document = openApiJsonFor(documentServer(location, base), policy?.describe);

    function route(method: string, path: string): Response {
      if (path === `${base}/openapi.json` && (method === 'GET' || method === 'HEAD')) {
        return new Response(method === 'GET' ? document : null, { headers: JSON_HEADERS });
      }
      if (base !== '' && !strippedSaid && (path === '/plants' || path === '/openapi.json')) {
        strippedSaid = true;
        report(new PlantApiError('ERR_NOT_FOUND', strippedPrefix(path, base)), {});
      }
      return replyResponse(refusal(path, base));
    }

    async function fetch(request: Request, host?: unknown): Promise<Response> {
      const path = pathOf(request.url);
      if (path === plants) return answer(request, host, plants);
      const response = route(request.method, path);
      if (policy !== undefined) {
        const headers = policy.headersFor(request.headers.get('origin'));
        for (const name in headers) response.headers.set(name, headers[name] as string);
      }
      return response;
    }

    recordRoutes(fetch, {
      ...shared,
      basePath: base,
      path: plants,
      refuse: (path) => refusal(path, base),
    });
    return fetch;
  }

  // What every handler of the store shares: the node:http adapter answers the operation on its
  // own request, and a framework's mount path goes in front of the base path.
  const shared = {
    handle: createPlant,
    basePath: location.basePath,
    publicOrigin: location.publicUrl === undefined ? undefined : new URL(location.publicUrl).origin,
    under: (prefix: string) => fetchAt(prefix + location.basePath),
  };
  recordRoutes(handleCreatePlant, {
    ...shared,
    path: undefined,
    refuse: () => errorReply('ERR_METHOD_NOT_ALLOWED'),
  });
  return { handleCreatePlant, fetch: fetchAt(location.basePath) };
}

/** By default a fault goes to the host request's own logger (Fastify's, pino-http's), else to the console. */
function logFault(error: unknown, context: ErrorContext): void {
  const log = (context.host as { log?: { error?: unknown } } | undefined)?.log;
  if (typeof log?.error === 'function') log.error({ err: error }, 'plant-store: a create failed');
  else console.error(error);
}

/** What a store whose routes are under `base` says of a request for its route without it. */
function strippedPrefix(path: string, base: string): string {
  return `${path} reached a store whose routes are under ${base}: a host took the prefix off (Hono's app.mount does by default)`;
}

/**
 * The answer of `fetch`'s routes under `base` to a method they do not take on `path`
 * (`undefined` for a target that is no path, as `CONNECT`'s): `405` on `/plants` and
 * `/openapi.json`, with the methods each allows, `404` elsewhere.
 */
function refusal(path: string | undefined, base: string): ErrorReply {
  if (path === `${base}/plants`) return errorReply('ERR_METHOD_NOT_ALLOWED');
  if (path === `${base}/openapi.json`) return OPENAPI_METHOD_NOT_ALLOWED;
  return errorReply('ERR_NOT_FOUND');
}

const OPENAPI_METHOD_NOT_ALLOWED: ErrorReply = (() => {
  const reply = errorReply('ERR_METHOD_NOT_ALLOWED');
  return { ...reply, headers: { ...reply.headers, allow: 'GET, HEAD' } };
})();

function checkOptions(
  repository: PlantRepository,
  verifier: TokenVerifier,
  maxBodyBytes: number,
  timeoutMs: number,
  onError: unknown,
): void {
  if (typeof verifier?.verify !== 'function') {
    throw new TypeError('createPlantStore needs a verifier with a verify(token, context) method');
  }
  if (typeof repository?.create !== 'function') {
    throw new TypeError('repository needs a create(plant, context) method');
  }
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError('maxBodyBytes must be a positive integer');
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(`timeoutMs must be in (0, ${MAX_TIMEOUT_MS}]`);
  }
  if (typeof onError !== 'function') {
    throw new TypeError('onError must be a function');
  }
}
