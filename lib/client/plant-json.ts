/**
 * A NewPlant as JSON text, the id written by hand: `JSON.stringify` cannot write a `bigint`, and
 * a `number` past 2^53 has already lost digits, so the id's digits are checked and copied.
 *
 * @module
 */

import type { NewPlant, PlantIdInput } from '../types.ts';
import { kind } from './client-options.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The JSON text of a plant: `id` exactly as given, `name`, and `tag` when present; nothing else.
 *
 * @param plant The plant, its id a `bigint`, a safe-integer `number` or a decimal string.
 * @returns The request body.
 * @throws {TypeError} When the id is not exactly an int64, or a field is not a string.
 * @example
 * ```ts
 * plantJson({ id: 2n ** 63n - 1n, name: 'Fern' }); // '{"id":9223372036854775807,"name":"Fern"}'
 * ```
 */
export function plantJson({ id, name, tag }: NewPlant<PlantIdInput>): string {
  if (typeof name !== 'string') {
    throw new TypeError(`createPlant: name must be a string, not ${kind(name)}`);
  }
  if (tag !== undefined && typeof tag !== 'string') {
    throw new TypeError(`createPlant: tag must be a string or absent, not ${kind(tag)}`);
  }
  const head = `{"id":${idText(id)},"name":${JSON.stringify(name)}`;
  return tag === undefined ? `${head}}` : `${head},"tag":${JSON.stringify(tag)}}`;
}

/** The id's decimal digits, normalised by `BigInt` (`-0` is `0`, leading zeros dropped). */
function idText(id: unknown): string {
  let value: bigint;
  if (typeof id === 'bigint') {
    value = id;
  } else if (typeof id === 'number') {
    if (!Number.isSafeInteger(id)) {
      throw new TypeError(
        Number.isInteger(id)
          ? `createPlant: id ${id} is past Number.MAX_SAFE_INTEGER and may already be rounded; pass a bigint (${BigInt(id)}n) or a decimal string`
          : `createPlant: id ${id} is not an integer`,
      );
    }
    value = BigInt(id);
  } else if (typeof id === 'string') {
    if (!/^-?\d+$/.test(id)) {
      throw new TypeError(
        `createPlant: id ${JSON.stringify(id)} is not a decimal integer string such as "9223372036854775807"`,
      );
    }
    value = BigInt(id);
  } else {
    throw new TypeError(
      `createPlant: id must be a bigint, a safe-integer number or a decimal string, not ${kind(id)}`,
    );
  }
  if (value < INT64_MIN || value > INT64_MAX) {
    throw new TypeError(`createPlant: id ${value} is outside int64 [${INT64_MIN}, ${INT64_MAX}]`);
  }
  return String(value);
}
