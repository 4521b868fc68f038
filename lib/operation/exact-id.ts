// `JSON.parse` rounds `9007199254740993` to a double, so the top-level `id` is read again from
// its literal, as JSON Schema reads "integer" (`1.0` and `1e2` are integers).

import { INT64_MAX, INT64_MIN } from './plant-schema.ts';

const LEADING_ID = /^\{"id":-?\d{1,19},/;

/**
 * The exact `id` of `text`, which `JSON.parse` read as `parsed`; `NaN` if not an integer.
 * `escaped`: whether `text` holds a backslash.
 */
export function exactIdFromText(text: string, parsed: number, escaped: boolean): bigint | number {
  // The usual spelling needs no scan: a plain integer first, and no other "id" key (nor an escape
  // that could spell one) later. Below 10^15 `parsed` is exact.
  if (!escaped && LEADING_ID.test(text) && !text.includes('"id"', 6)) {
    return BigInt(Math.abs(parsed) < 1e15 ? parsed : text.slice(6, text.indexOf(',')));
  }
  return integerAt(text, lastTopLevelIdValue(text));
}

// Sticky, on valid JSON: a number read there is the whole literal.
const NUMBER_AT = /\s*(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;

/**
 * The integer the literal at `index` denotes (`10e-1` is one, `1.0000000000000001` is not), or
 * `NaN`. One far out of range is clamped just past it, so the range check still fails.
 */
function integerAt(text: string, index: number): bigint | number {
  NUMBER_AT.lastIndex = index;
  const match = NUMBER_AT.exec(text);
  if (match === null) return Number.NaN;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return 0n; // every spelling of zero, -0 included
  // value = digits × 10^exponent; a huge exponent is ±Infinity, which still classifies below.
  let exponent = Number(exponentText) - fraction.length;
  const significant = digits.replace(/0+$/, '');
  exponent += digits.length - significant.length;
  digits = significant;
  if (exponent < 0) return Number.NaN;
  // An int64 has 19 digits at most.
  if (digits.length + exponent > 19) return sign === '-' ? INT64_MIN - 1n : INT64_MAX + 1n;
  const magnitude = BigInt(digits) * 10n ** BigInt(exponent);
  return sign === '-' ? -magnitude : magnitude;
}

/**
 * Where the value of the last top-level `"id"` starts (0 if none), in text `JSON.parse` accepted
 * as an object. Keys compare decoded (`"\u0069d"` is `id`); a loop, so depth never grows the stack.
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
      // To the closing quote, over escaped characters.
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
