import { createDeadlines } from './_deadlines.ts';
import { PLAIN_HANDLER, type PlainHandler, type PlainRequest } from './_plain-handler.ts';
import { createPlantOperation } from './_plant-create.ts';
import { bodyAlreadyRead, readBody } from './_read-body.ts';
import { errorResponse, JSON_HEADERS, replyResponse } from './errors.ts';
import { createMemoryRepository } from './memory-repository.ts';
import { openApiDocument } from './openapi.ts';
import type {
  CreatePlantStoreOptions,
  PlantRepository,
  PlantStore,
  TokenVerifier,
} from './types.ts';

/** The default of `maxBodyBytes`: 100 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 102_400;
/** The default of `timeoutMs`: 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;
// setTimeout fires at once for delays past 2^31 - 1 ms, so larger deadlines are refused.
const MAX_TIMEOUT_MS = 2_147_483_647;

const OPENAPI_JSON = JSON.stringify(openApiDocument);

/**
 * Creates a plant store: the specification's create-a-plant operation as a web-standard handler,
 * with the storage and auth the host plugs in.
 *
 * `handleCreatePlant` answers every request it gets as `POST /plants`, wherever the host mounts
 * it. `fetch` routes: `/plants` to the operation, `GET /openapi.json` to the OpenAPI document,
 * anything else to `404`. Every answer follows the behaviour contract: checks in the order
 * method, auth, body presence, media type, size, UTF-8 and JSON, shape, then storage; every
 * error an Error body `{ "error": <status>, "message": <text> }`.
 *
 * @param options The repository (default: in memory), the verifier (required), the body limit
 *   (default 100 KiB), the deadline (default 10 s) and the `onError` callback.
 * @returns The store's `handleCreatePlant` and `fetch`.
 * @throws {TypeError} When the verifier is missing or an option is out of range.
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
export function createPlantStore(options: CreatePlantStoreOptions): PlantStore {
  const {
    repository = createMemoryRepository(),
    verifier,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    onError = console.error,
  } = options ?? ({} as CreatePlantStoreOptions);
  checkOptions(repository, verifier, maxBodyBytes, timeoutMs, onError);
  const createPlant = createPlantOperation({
    verifier,
    repository,
    maxBodyBytes,
    deadlines: createDeadlines(timeoutMs),
    report(error) {
      try {
        // An async onError type-checks too: its rejection must not become an unhandled one.
        const pending: unknown = onError(error);
        if (pending instanceof Promise) pending.catch(() => {});
      } catch {
        // A broken onError must not turn a 500 into a crash; there is nowhere left to report to.
      }
    },
  });

  function handleCreatePlant(request: Request): Promise<Response> {
    return new Promise((resolve) => {
      createPlant(plainRequestOf(request), (reply) => resolve(replyResponse(reply)));
    });
  }

  async function fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/plants') return handleCreatePlant(request);
    if (path === '/openapi.json') {
      if (request.method === 'GET' || request.method === 'HEAD') {
        const body = request.method === 'GET' ? OPENAPI_JSON : null;
        return new Response(body, { status: 200, headers: JSON_HEADERS });
      }
      const response = errorResponse('ERR_METHOD_NOT_ALLOWED');
      response.headers.set('allow', 'GET, HEAD');
      return response;
    }
    return errorResponse('ERR_NOT_FOUND');
  }

  // The node:http adapter answers these on plain values, without a Request or a Response.
  const everyPath: PlainHandler = { path: undefined, handle: createPlant };
  const plantsPath: PlainHandler = { path: '/plants', handle: createPlant };
  Object.defineProperty(handleCreatePlant, PLAIN_HANDLER, { value: everyPath });
  Object.defineProperty(fetch, PLAIN_HANDLER, { value: plantsPath });

  return { handleCreatePlant, fetch };
}

/** The plain values of a web-standard request. */
function plainRequestOf(request: Request): PlainRequest {
  const { headers, body, signal } = request;
  const contentLength = headers.get('content-length') ?? '';
  return {
    method: request.method,
    authorization: headers.get('authorization'),
    contentType: headers.get('content-type'),
    // A usable Content-Length is plain digits; absent (''), or anything else, declares nothing.
    declaredLength: /^\d+$/.test(contentLength) ? Number(contentLength) : -1,
    hasBody: body !== null,
    // The core asks for the body only when hasBody is true.
    readBody(maxBytes, sink) {
      const stream = body as ReadableStream<Uint8Array>;
      // A host's body parser or validator got there first: say so now, not at the deadline.
      if (request.bodyUsed || stream.locked) sink.fail(bodyAlreadyRead());
      else void readBody(stream, maxBytes, sink);
    },
    client: signal,
  };
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
