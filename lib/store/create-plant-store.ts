/**
 * `createPlantStore`: the operation with the host's collaborators, as the two web-standard
 * handlers a host mounts, and the routes of `fetch`.
 *
 * @module
 */

import { type ErrorReply, errorReply, JSON_HEADERS, replyResponse } from '../errors.ts';
import { checkOptionNames } from '../options/check-option-names.ts';
import { openApiJsonFor } from '../openapi/openapi-document.ts';
import { createPlantOperation } from '../operation/create-plant.ts';
import { createDeadlines } from '../operation/deadlines.ts';
import { createMemoryRepository } from '../repositories/memory-repository.ts';
import type {
  CreatePlantStoreOptions,
  PlantRepository,
  PlantStore,
  TokenVerifier,
} from '../types.ts';
import { corsPolicyOf } from './cors-policy.ts';
import { attachPlainHandler } from './plain-handler.ts';
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
];

/**
 * Creates a plant store: the specification's create-a-plant operation as a web-standard handler,
 * with the storage and auth the host plugs in.
 *
 * `handleCreatePlant` answers every request it gets as `POST /plants`, wherever the host mounts
 * it. `fetch` routes: `/plants` to the operation, `GET /openapi.json` to the OpenAPI document
 * (its server: the origin it was fetched from), anything else to `404`. With the `cors` option,
 * both answer browsers of the allowed origins (a preflight `204`, the CORS headers on every
 * response to them). Every answer follows the behaviour contract: checks in the order
 * method, auth, body presence, media type, size, UTF-8 and JSON, shape, then storage; every
 * error an Error body `{ "error": <status>, "message": <text> }`.
 *
 * @param options The repository (default: in memory), the verifier (required), the body limit
 *   (default 100 KiB), the deadline (default 10 s), the `onError` callback and CORS (default off).
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
    onError = console.error,
    onTokenRejected,
    cors,
  } = options ?? ({} as CreatePlantStoreOptions<Principal>);
  checkOptionNames('createPlantStore', options, KNOWN_OPTIONS);
  checkOptions(repository, verifier, maxBodyBytes, timeoutMs, onError);
  if (onTokenRejected !== undefined && typeof onTokenRejected !== 'function') {
    throw new TypeError('onTokenRejected must be a function');
  }
  const policy = cors === undefined ? undefined : corsPolicyOf(cors);
  const operation = createPlantOperation({
    verifier,
    repository,
    maxBodyBytes,
    deadlines: createDeadlines(timeoutMs),
    report(error, context) {
      callGuarded(onError, error, context, undefined);
    },
    // A throw or a rejection of onTokenRejected is the host's bug: it goes to onError.
    tokenRejected:
      onTokenRejected === undefined
        ? undefined
        : (reason, context) =>
            callGuarded(onTokenRejected, reason, context, (error) =>
              callGuarded(onError, error, context, undefined),
            ),
  });
  // Decided once: with CORS off the operation runs bare, and a request costs no CORS work at all.
  const createPlant = policy === undefined ? operation : policy.wrap(operation);
  const withCorsOn = policy !== undefined;

  function handleCreatePlant(request: Request): Promise<Response> {
    return new Promise((resolve) => {
      createPlant(new WebPlainRequest(request, withCorsOn), (reply) =>
        resolve(replyResponse(reply)),
      );
    });
  }

  function route(request: Request, url: URL): Response {
    if (
      url.pathname === '/openapi.json' &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      const body = request.method === 'GET' ? openApiJsonFor(url.origin) : null;
      return new Response(body, { status: 200, headers: JSON_HEADERS });
    }
    return replyResponse(refusal(url.pathname));
  }

  async function fetch(request: Request): Promise<Response> {
    // The operation's path is told by a slice of the URL; the other routes need its origin.
    if (pathOf(request.url) === '/plants') return handleCreatePlant(request);
    const response = route(request, new URL(request.url));
    if (policy !== undefined) {
      const headers = policy.headersFor(request.headers.get('origin'));
      for (const name in headers) response.headers.set(name, headers[name] as string);
    }
    return response;
  }

  // The node:http adapter answers these on plain values, without a Request or a Response.
  attachPlainHandler(handleCreatePlant, {
    path: undefined,
    handle: createPlant,
    refuse: () => errorReply('ERR_METHOD_NOT_ALLOWED'),
  });
  attachPlainHandler(fetch, { path: '/plants', handle: createPlant, refuse: refusal });

  return { handleCreatePlant, fetch };
}

/**
 * The answer of `fetch`'s routes to a method they do not take on `path` (`undefined` for a
 * target that is no path, as `CONNECT`'s): `405` on `/plants` and `/openapi.json`, with the
 * methods each allows, `404` elsewhere.
 */
function refusal(path: string | undefined): ErrorReply {
  if (path === '/plants') return errorReply('ERR_METHOD_NOT_ALLOWED');
  if (path === '/openapi.json') return OPENAPI_METHOD_NOT_ALLOWED;
  return errorReply('ERR_NOT_FOUND');
}

const OPENAPI_METHOD_NOT_ALLOWED: ErrorReply = (() => {
  const reply = errorReply('ERR_METHOD_NOT_ALLOWED');
  return { ...reply, headers: { ...reply.headers, allow: 'GET, HEAD' } };
})();

/**
 * Calls a host's hook so that nothing it does reaches the host's process: a throw, or the
 * rejection of an async hook (which type-checks too), goes to `failed`, or nowhere.
 */
function callGuarded<A, B>(
  hook: (a: A, b: B) => unknown,
  a: A,
  b: B,
  failed: ((error: unknown) => void) | undefined,
): void {
  try {
    const pending = hook(a, b);
    if (pending instanceof Promise) pending.catch((error: unknown) => failed?.(error));
  } catch (error) {
    // A broken hook must not turn a reply into a crash.
    failed?.(error);
  }
}

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
