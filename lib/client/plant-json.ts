import type { Plant } from '../types.ts';
import { kind } from './client-options.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The Plant a create sends, its name and tag checked: what a `200` must answer. */
export function plantSent(name: unknown, tag: unknown): Plant {
  if (typeof name !== 'string') {
    throw new TypeError(`createPlant: name must be a string, not ${kind(name)}`);
  }
  if (tag === undefined) return { name };
  if (typeof tag !== 'string') {
    throw new TypeError(`createPlant: tag must be a string or absent, not ${kind(tag)}`);
  }
  return { name, tag };
}

/** A new plant's JSON text: the id written by hand (`JSON.stringify` cannot write a `bigint`). */
export function plantJson(id: unknown, plant: Plant): string {
  return `{"id":${idText(id)},${JSON.stringify(plant).slice(1)}`;
}

/** The id's decimal digits, through `BigInt`, which drops leading zeros and the sign of `-0`. */
function idText(id: unknown): string {
  if (typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id)) {
    throw new TypeError(
      `createPlant: id ${id} is past Number.MAX_SAFE_INTEGER and may already be rounded; pass it as a bigint or a decimal string from where it came`,
    );
  }
  const exact =
    typeof id === 'bigint' ||
    Number.isSafeInteger(id) ||
    (typeof id === 'string' && /^-?\d+$/.test(id));
  const value = exact ? BigInt(id as bigint | number | string) : undefined;
  if (value === undefined || value < INT64_MIN || value > INT64_MAX) {
    throw new TypeError(
      `createPlant: id must be an int64 [${INT64_MIN}, ${INT64_MAX}]: a bigint, a safe-integer number or a decimal string`,
    );
  }
  return String(value);
}
