import { bearerToken } from './_bearer-token.ts';
import { createDeadlines } from './_deadlines.ts';
import { isJsonUtf8 } from './_media-type.ts';
import {
  PLAIN_HANDLER,
  type PlainHandler,
  type PlainRequest,
  type Reply,
} from './_plain-handler.ts';
import { readBody } from './_read-body.ts';
import { readJsonPlant } from './_read-json-plant.ts';
import { RequestLife } from './_request-life.ts';
import { errorReply, errorResponse, JSON_HEADERS } from './errors.ts';
import { createMemoryRepository } from './memory-repository.ts';
import { openApiDocument } from './openapi.ts';
import type {
  CreatePlantStoreOptions,
  NewPlant,
  Plant,
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
  const tooLarge = `request body is larger than ${maxBodyBytes} bytes`;
  const deadlines = createDeadlines(timeoutMs);

  function report(error: unknown): void {
    try {
      onError(error);
    } catch {
      // A broken onError must not turn a 500 into a crash; there is nowhere left to report to.
    }
  }

  async function createPlant(input: PlainRequest): Promise<Reply> {
    if (input.method !== 'POST') return errorReply('ERR_METHOD_NOT_ALLOWED');
    const token = bearerToken(input.authorization);
    if (token === undefined) return errorReply('ERR_MISSING_TOKEN');

    const life = new RequestLife(input.client, deadlines);
    try {
      // A collaborator that answers synchronously is not awaited: no wait, no extra turn.
      const pendingVerdict = verifier.verify(token, new CollaboratorContext(life, undefined));
      const verdict = isThenable(pendingVerdict) ? await life.wait(pendingVerdict) : pendingVerdict;
      // After each wait, stop if the store already gave up: no late writes nobody will answer.
      life.throwIfEnded();
      // Fail closed: only an explicit { valid: true } lets a request through.
      if (verdict?.valid !== true) return errorReply('ERR_INVALID_TOKEN');

      // Content-Length is read here once, for both rules, whichever front filled the input.
      const declared = declaredLength(input.contentLength);
      if (!input.hasBody || declared === 0) return errorReply('ERR_BODY_REQUIRED');
      if (!isJsonUtf8(input.contentType)) return errorReply('ERR_UNSUPPORTED_MEDIA_TYPE');
      if (declared > maxBodyBytes) return errorReply('ERR_BODY_TOO_LARGE', tooLarge);
      const bytes = await life.wait(input.readBody(maxBodyBytes));
      if (bytes === 'ERR_BODY_TOO_LARGE') return errorReply(bytes, tooLarge);
      if (bytes === 'ERR_BODY_REQUIRED') return errorReply(bytes);
      life.throwIfEnded();

      const plant = readJsonPlant(bytes);
      if ('code' in plant) return errorReply(plant.code, plant.message);

      const pendingOutcome = repository.create(
        plant,
        new CollaboratorContext(life, verdict.principal),
      );
      const outcome = isThenable(pendingOutcome) ? await life.wait(pendingOutcome) : pendingOutcome;
      if (!outcome.created && !samePlant(outcome.existing, plant)) {
        return errorReply('ERR_ID_CONFLICT');
      }
      return {
        status: 200,
        headers: JSON_HEADERS,
        body: JSON.stringify({ name: plant.name, tag: plant.tag }),
      };
    } catch (error) {
      // A hung verifier or repository cannot hold the client past the deadline: `life.wait`
      // gives up with a 503 and the late result, whatever it is, is dropped.
      if (life.ended) return errorReply('ERR_TIMEOUT'); // gone or too late: not a fault
      report(error);
      return errorReply('ERR_INTERNAL');
    } finally {
      life.dispose();
    }
  }

  async function handleCreatePlant(request: Request): Promise<Response> {
    const reply = await createPlant(plainRequestOf(request));
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
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
  const everyPath: PlainHandler = { handles: () => true, handle: createPlant };
  const plantsPath: PlainHandler = { handles: (path) => path === '/plants', handle: createPlant };
  Object.defineProperty(handleCreatePlant, PLAIN_HANDLER, { value: everyPath });
  Object.defineProperty(fetch, PLAIN_HANDLER, { value: plantsPath });

  return { handleCreatePlant, fetch };
}

/** The plain values of a web-standard request. */
function plainRequestOf(request: Request): PlainRequest {
  const { headers, body, signal } = request;
  return {
    method: request.method,
    authorization: headers.get('authorization'),
    contentType: headers.get('content-type'),
    contentLength: headers.get('content-length'),
    hasBody: body !== null,
    // The core asks for the body only when hasBody is true.
    readBody: (maxBytes) => readBody(body as ReadableStream<Uint8Array>, maxBytes),
    client: signal,
  };
}

/**
 * What the verifier and the repository receive. `signal` is a getter on the prototype, so the
 * signal is made only if a collaborator reads it (see `RequestLife`), at the cost of one small
 * object per call.
 */
class CollaboratorContext {
  readonly principal: unknown;
  readonly #life: RequestLife;

  constructor(life: RequestLife, principal: unknown) {
    this.#life = life;
    this.principal = principal;
  }

  get signal(): AbortSignal {
    return this.#life.signal;
  }
}

/** Whether a collaborator's answer is a promise (or any thenable) rather than the value itself. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/** Same content: the stored plant is what the client sent again (an idempotent replay). */
function samePlant(stored: Plant, sent: NewPlant): boolean {
  // A store may hand back an absent tag as null (SQL) or undefined; both mean "no tag".
  return stored.name === sent.name && (stored.tag ?? undefined) === sent.tag;
}

/** The declared body length, `-1` when there is no usable `Content-Length`. */
function declaredLength(contentLength: string | null): number {
  if (contentLength === null || !/^\d+$/.test(contentLength)) return -1;
  return Number(contentLength);
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
