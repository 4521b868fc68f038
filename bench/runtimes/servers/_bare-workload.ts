/**
 * The plant workload as a hand-written web-standard handler, the bare baseline of each runtime:
 * `bench/servers/_fetch-workload.ts` (`new URL`, `request.headers.get`, the body read whole by the
 * runtime, `request.text()` by default, `JSON.parse`, `Response.json`), keeping every int64 id
 * exact, as the correctness check asks: an id that is not a safe integer is read
 * again from its literal (`JSON.parse`'s source text access) and kept as a `bigint`. The usual
 * id is safe, so the common path pays one `Number.isSafeInteger` for it.
 *
 * @module
 */

import {
  createFetchWorkload,
  type ReadText,
  readTextCapped,
} from '../../servers/_fetch-workload.ts';

/** How the bare handler reads a body: the whole text, or `undefined` past the limit. */
export type BodyText = ReadText;

/** The reader a user writes first: `request.text()` (the length was checked already). */
export const readWithText: BodyText = (request) => request.text();

const decoder = new TextDecoder();

/** The runtime's whole-body reader, `arrayBuffer()`, then a decode: what plant-store now does. */
export const readWithArrayBuffer: BodyText = async (request) =>
  decoder.decode(await request.arrayBuffer());

/**
 * A stream reader per request, counting bytes against the limit (the Node bench's
 * `readTextCapped`): what plant-store did for every body before 39d1bb1, kept to measure that
 * path apart from the rest of plant-store.
 */
export const readWithReader: BodyText = readTextCapped;

/**
 * `arrayBuffer()` after looking at the body as plant-store's web front does (`request.body`,
 * `bodyUsed`, the stream's `locked`), to measure what touching the stream first costs.
 */
export const readWithArrayBufferAfterBody: BodyText = async (request) => {
  const { body } = request;
  if (body === null || request.bodyUsed || body.locked) return undefined;
  return decoder.decode(await request.arrayBuffer());
};

/** `request.text()` after reading `request.signal`, as plant-store's web front does. */
export const readWithTextAfterSignal: BodyText = (request) => {
  if (request.signal.aborted) return Promise.resolve(undefined);
  return request.text();
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The exact top-level id of `text` whose parsed id is not a safe integer: a `bigint` within
 * int64, or `undefined` when its literal is no plain integer or is out of range.
 */
function exactUnsafeId(text: string): bigint | undefined {
  // The reviver sees every "id" with its holder and literal; the top-level one is the root's.
  const seen: Array<[holder: unknown, literal: string | undefined]> = [];
  const root: unknown = JSON.parse(
    text,
    function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
      if (key === 'id' && typeof value === 'number') seen.push([this, context?.source]);
      return value;
    },
  );
  const literal = seen.find(([holder]) => holder === root)?.[1];
  if (literal === undefined || !/^-?\d+$/.test(literal)) return undefined;
  const id = BigInt(literal);
  return id < INT64_MIN || id > INT64_MAX ? undefined : id;
}

/** A safe id as it is; any other as its exact `bigint`, or the `400` message when it is none. */
function exactKey(id: number, text: string): number | bigint | string {
  if (Number.isSafeInteger(id)) return id;
  return exactUnsafeId(text) ?? 'id must be an int64';
}

/** A fetch handler for the plant workload, with its own in-memory store of exact ids. */
export function createBareHandler(
  readText: BodyText = readWithText,
): (request: Request) => Promise<Response> {
  return createFetchWorkload(readText, exactKey);
}
