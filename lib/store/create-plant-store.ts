import { type ErrorReply, errorReply, JSON_HEADERS, replyResponse } from '../errors.ts';
import { callHook } from '../guards/call-hook.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { MAX_TIMER_MS } from '../guards/timer-limit.ts';
import { openApiJsonFor } from '../openapi/openapi-document.ts';
import { traced } from '../diagnostics/create-trace.ts';
import { collaboratorsOf } from '../operation/collaborator-answers.ts';
import { createOperation } from '../operation/create-plant.ts';
import { Deadlines } from '../operation/deadlines.ts';
import { ON_WORKERS } from '../operation/on-workers.ts';
import { createMemoryRepository } from '../repositories/memory-repository.ts';
import type {
  CreatePlantStoreOptions,
  ErrorContext,
  PlantRepository,
  PlantStore,
  TokenVerifier,
} from '../types.ts';
import { apiLocationOf, TRUST_PROXY_RETIRED } from './api-location.ts';
import { corsPolicyOf } from './cors-policy.ts';
import { recordRoutes } from './store-routes.ts';
import { pathOf } from './url-path.ts';
import { WebPlainRequest } from './web-request.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from '../types.ts';

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
 * Creates a plant store: the create-a-plant operation as web-standard handlers.
 *
 * `fetch` serves `POST /plants` and `GET /openapi.json` under `basePath`, and `404`/`405` for the
 * rest; `handleCreatePlant` answers any request as `POST /plants`, wherever the host mounts it.
 * By default plants are kept in memory, a body may be 100 KiB and a create has 10 s; every error
 * is an Error body, `{ "error": <status>, "message": <text> }`.
 *
 * @param options The verifier (required), the repository, the limits, the callbacks, CORS and
 *   where the API lives.
 * @returns The store's `handleCreatePlant` and `fetch`.
 * @throws {TypeError} When the verifier is missing, or an option is out of range or unknown.
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
    deadlines: new Deadlines(timeoutMs),
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
  const observed = traced(operation, collaborators);
  // Decided once: with CORS off the operation runs bare.
  const handle = policy?.wrap(observed) ?? observed;
  const withCorsOn = policy !== undefined;

  function answer(request: Request, host: unknown, route?: string): Promise<Response> {
    return new Promise((resolve) => {
      const input = new WebPlainRequest(request, withCorsOn, host, route);
      handle(input, (reply) => resolve(dated(replyResponse(reply))));
    });
  }

  const handleCreatePlant = (request: Request, host?: unknown): Promise<Response> =>
    answer(request, host);

  // The same under every mount and for every request: no request header enters it.
  const document = openApiJsonFor(location.publicUrl, policy?.describe);

  /** The routes under `base` (`''` for the root). */
  function fetchAt(base: string): (request: Request, host?: unknown) => Promise<Response> {
    const plants = `${base}/plants`;

    // Not async: a create answers through its own promise, with none wrapped around it.
    function fetch(request: Request, host?: unknown): Promise<Response> {
      const path = pathOf(request.url);
      return path === plants ? answer(request, host, plants) : route(request, path);
    }

    async function route(request: Request, path: string): Promise<Response> {
      const { method } = request;
      const response =
        path === `${base}/openapi.json` && (method === 'GET' || method === 'HEAD')
          ? new Response(method === 'GET' ? document : null, { headers: JSON_HEADERS })
          : replyResponse(methodRejection(path, base));
      if (policy !== undefined) {
        const headers = policy.headersFor(request.headers.get('origin'));
        for (const name in headers) response.headers.set(name, headers[name] as string);
      }
      return dated(response);
    }

    recordRoutes(fetch, {
      ...shared,
      basePath: base,
      path: plants,
      rejectMethod: (path) => methodRejection(path, base),
    });
    return fetch;
  }

  // What every handler shares; a framework's mount path goes in front of the base path.
  const shared = {
    handle,
    basePath: location.basePath,
    publicUrl: location.publicUrl,
    under: (prefix: string) => fetchAt(prefix + location.basePath),
  };
  recordRoutes(handleCreatePlant, {
    ...shared,
    rejectMethod: () => errorReply('ERR_METHOD_NOT_ALLOWED'),
  });
  return { handleCreatePlant, fetch: fetchAt(location.basePath) };
}

/**
 * The answer with the `Date` an origin server sends (RFC 9110 §6.6.1), on workerd, which adds
 * none; Node, Deno and Bun add their own.
 */
function dated(response: Response): Response {
  if (ON_WORKERS) response.headers.set('date', new Date().toUTCString());
  return response;
}

/** The default `onError`: the request's own logger (Fastify's, pino-http's), else the console. */
function logFault(error: unknown, context: ErrorContext): void {
  const log = (context.host as { log?: { error?: unknown } } | undefined)?.log;
  if (typeof log?.error === 'function') log.error({ err: error }, 'plant-store: a create failed');
  else console.error(error);
}

/** A method the routes under `base` do not take on `path`: `405` on a route, else `404`. */
function methodRejection(path: string | undefined, base: string): ErrorReply {
  if (path === `${base}/plants`) return errorReply('ERR_METHOD_NOT_ALLOWED');
  if (path === `${base}/openapi.json`) return OPENAPI_METHOD_NOT_ALLOWED;
  // A route without the base path: a wrong URL, or a host that took the prefix off.
  if (base !== '' && (path === '/plants' || path === '/openapi.json')) {
    return errorReply('ERR_NOT_FOUND', `not found: this store's routes are under ${base}`);
  }
  return errorReply('ERR_NOT_FOUND');
}

const OPENAPI_METHOD_NOT_ALLOWED: ErrorReply = {
  ...errorReply('ERR_METHOD_NOT_ALLOWED'),
  headers: { ...JSON_HEADERS, allow: 'GET, HEAD' },
};

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
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS) {
    throw new TypeError(`timeoutMs must be in (0, ${MAX_TIMER_MS}]`);
  }
  if (typeof onError !== 'function') {
    throw new TypeError('onError must be a function');
  }
}
