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
const DECIMAL = /^-?\d+$/;
const RANGE = `int64 [${INT64_MIN}, ${INT64_MAX}]`;

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
export function plantJson(plant: NewPlant<PlantIdInput>): string {
  if (typeof plant !== 'object' || plant === null) {
    throw new TypeError(
      `createPlant: the plant must be an object { id, name, tag? }, not ${kind(plant)}`,
    );
  }
  const { id, name, tag } = plant;
  if (typeof name !== 'string') {
    throw new TypeError(`createPlant: name must be a string, not ${kind(name)}`);
  }
  if (tag !== undefined && typeof tag !== 'string') {
    throw new TypeError(`createPlant: tag must be a string or absent, not ${kind(tag)}`);
  }
  const head = `{"id":${idText(id)},"name":${JSON.stringify(name)}`;
  return tag === undefined ? `${head}}` : `${head},"tag":${JSON.stringify(tag)}}`;
}

/** The id's decimal digits, normalised (`-0` is `0`, leading zeros dropped). */
function idText(id: unknown): string {
  if (typeof id === 'bigint') return inRange(id);
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id)) return String(id === 0 ? 0 : id);
    if (Number.isInteger(id)) {
      throw new TypeError(
        `createPlant: id ${id} is past Number.MAX_SAFE_INTEGER and may already be rounded; pass a bigint (${BigInt(id)}n) or a decimal string`,
      );
    }
    throw new TypeError(`createPlant: id ${id} is not an integer; an id is an ${RANGE} integer`);
  }
  if (typeof id === 'string') {
    if (!DECIMAL.test(id)) {
      throw new TypeError(
        `createPlant: id ${JSON.stringify(id.slice(0, 40))} is not a decimal integer string such as "9223372036854775807"`,
      );
    }
    // Leading zeros go before the length check, which keeps BigInt off a megabyte of digits.
    const digits = id.replace(/^(-?)0+(?=\d)/, '$1');
    if (digits.length > 20) throw outOfRange(`${digits.slice(0, 24)}…`);
    return inRange(BigInt(digits));
  }
  throw new TypeError(
    `createPlant: id must be a bigint, a safe-integer number or a decimal string, not ${kind(id)}`,
  );
}

function inRange(id: bigint): string {
  if (id < INT64_MIN || id > INT64_MAX) throw outOfRange(String(id));
  return String(id);
}

function outOfRange(text: string): TypeError {
  return new TypeError(`createPlant: id ${text} is outside ${RANGE}`);
}
