/**
 * The bare baseline on Bun and on Deno: the hand-written handler of
 * `bench/servers/_fetch-workload.ts` on the runtime's own server, keeping every int64 id exact,
 * as the correctness check asks: an id that is not a safe integer is read again from its literal
 * (`JSON.parse`'s source text access) and kept as a `bigint`.
 *
 * @module
 */

import { createFetchWorkload, type ReadText } from '../../servers/_fetch-workload.ts';
import { serveHere } from './_runtime.ts';

/** The reader a user writes first: `request.text()` (the length was checked already). */
const readWithText: ReadText = (request) => request.text();

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

serveHere(createFetchWorkload(readWithText, exactKey));
