/**
 * The exact value of a JSON document's top-level `id`: `JSON.parse` reads every number as a
 * double, which rounds `9007199254740993` to `9007199254740992`, so the id is read again from its
 * literal in the text, as JSON Schema reads "integer" (`1.0` and `1e2` are integers).
 *
 * @module
 */

import { INT64_MAX, INT64_MIN } from './plant-schema.ts';

/** Text that opens with an `id` written as a plain integer, 19 digits at most, then a comma. */
const LEADING_ID = /^\{"id":-?\d{1,19},/;

/**
 * The value of the top-level `id` member of valid JSON text whose `id` is a number (`parsed`,
 * as `JSON.parse` read it): a `bigint` when the literal is an integer (clamped just outside the
 * int64 range when it is far beyond it, so the range check still fails), or `NaN` when it is
 * not an integer.
 */
export function exactIdFromText(text: string, parsed: number): bigint | number {
  // The usual spelling, read without a scan: a plain integer first, and no other "id" key (nor
  // an escape that could spell one) later. Below 10^15 (15 digits) `parsed` is exact; a longer
  // literal is read from the text.
  if (LEADING_ID.test(text) && !text.includes('"id"', 6) && !text.includes('\\')) {
    return BigInt(Math.abs(parsed) < 1e15 ? parsed : text.slice(6, text.indexOf(',')));
  }
  // JSON.parse saw a number at the last "id", so the scan finds it (NaN only if not).
  return integerAt(text, lastTopLevelIdValue(text));
}

/**
 * A JSON number literal after whitespace, where it is asked for (sticky). The text is valid
 * JSON, so a number read there is the whole literal.
 */
const NUMBER_AT = /\s*(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;

/**
 * The exact integer the JSON number literal at `index` denotes, as JSON Schema reads "integer":
 * `1.0`, `1e2` and `10e-1` are integers, `1.5` and `1.0000000000000001` are not.
 *
 * @returns The integer, `INT64_MAX + 1n` / `INT64_MIN - 1n` when it is beyond the range by more
 *   than the digits can say, or `NaN` when the value is not an integer (or no number is there).
 */
function integerAt(text: string, index: number): bigint | number {
  NUMBER_AT.lastIndex = index;
  const match = NUMBER_AT.exec(text);
  if (match === null) return Number.NaN;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return 0n; // every spelling of zero, -0 included
  // value = digits × 10^exponent; Number() of a huge exponent is ±Infinity, which still
  // classifies right below.
  let exponent = Number(exponentText) - fraction.length;
  const significant = digits.replace(/0+$/, '');
  exponent += digits.length - significant.length;
  digits = significant;
  if (exponent < 0) return Number.NaN;
  // 19 digits is the most an int64 has; anything longer is out of range, so skip the BigInt.
  if (digits.length + exponent > 19) return sign === '-' ? INT64_MIN - 1n : INT64_MAX + 1n;
  const magnitude = BigInt(digits) * 10n ** BigInt(exponent);
  return sign === '-' ? -magnitude : magnitude;
}

/**
 * Finds where the value of the last top-level `"id"` member starts (0, where no number is, if
 * there is none) in JSON text that `JSON.parse` has already accepted as an object, so the scan
 * may trust the syntax. At depth 1 a colon follows a key: the last string read at that depth.
 * Keys are compared by their decoded value, so `"\u0069d"` is `id` too. Iterative: nesting depth
 * never grows the stack.
 */
function lastTopLevelIdValue(text: string): number {
  let depth = 0;
  let keyStart = 0;
  let keyEnd = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const start = i;
      // On to the closing quote, stepping over every escaped character.
      while (text[++i] !== '"') if (text[i] === '\\') i++;
      if (depth === 1) {
        keyStart = start;
        keyEnd = i + 1;
      }
    } else if (char === '{' || char === '[') {
      depth++;
    } else if (char === '}' || char === ']') {
      depth--;
    } else if (char === ':' && depth === 1 && JSON.parse(text.slice(keyStart, keyEnd)) === 'id') {
      value = i + 1;
    }
  }
  return value;
}
