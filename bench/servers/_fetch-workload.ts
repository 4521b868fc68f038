/**
 * The plant workload as a plain web-standard fetch handler, written the way a user of a
 * Request/Response server would: `new URL`, `request.headers.get`, read the text, `JSON.parse`,
 * `Response.json`. Served by srvx and by @remix-run/node-fetch-server.
 */
import {
  type BenchPlant,
  errorBody,
  isAuthorized,
  isJson,
  MAX_BODY_BYTES,
  readPlant,
  storePlant,
} from './_common.ts';

/** Reads the whole body as text, or `undefined` when it passes the limit. */
export type ReadText = (request: Request) => Promise<string | undefined>;

const JSON_HEADERS = { 'content-type': 'application/json' };

function fail(status: number, message: string, headers?: Record<string, string>): Response {
  return new Response(errorBody(status, message), {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers },
  });
}

/** Reads the body stream, counting bytes and giving up past the limit. */
export async function readTextCapped(request: Request): Promise<string | undefined> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString();
}

/**
 * The key a plant is stored under, from its parsed id and the body's text, or the `400` message
 * when the id cannot be kept. By default the parsed number, as a user of `JSON.parse` gets it.
 */
export type KeyOf = (id: number, text: string) => number | bigint | string;

/** A fetch handler for the plant workload, with its own in-memory store. */
export function createFetchWorkload(
  readText: ReadText,
  keyOf: KeyOf = (id) => id,
): (request: Request) => Promise<Response> {
  const plants = new Map<number | bigint, BenchPlant>();
  return async (request) => {
    if (new URL(request.url).pathname !== '/plants') return fail(404, 'not found');
    if (request.method !== 'POST') return fail(405, 'method not allowed', { allow: 'POST' });
    if (!isAuthorized(request.headers.get('authorization'))) {
      return fail(401, 'a bearer token is required', {
        'www-authenticate': 'Bearer realm="plant-store"',
      });
    }
    if (!isJson(request.headers.get('content-type'))) return fail(415, 'unsupported media type');
    if (Number(request.headers.get('content-length') ?? '-1') > MAX_BODY_BYTES) {
      return fail(413, 'request body too large');
    }
    const text = await readText(request);
    if (text === undefined) return fail(413, 'request body too large');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return fail(400, 'body is not valid JSON');
    }
    const parsed = readPlant(value);
    if (typeof parsed === 'string') return fail(400, parsed);
    const key = keyOf(parsed.id, text);
    if (typeof key === 'string') return fail(400, key);
    if (!storePlant(plants, key, parsed.plant)) return fail(409, 'id already exists');
    return Response.json(parsed.plant);
  };
}
