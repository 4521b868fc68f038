import * as v from 'valibot';
import { INT64_MAX, INT64_MIN, isPlantId, isPlantText, NewPlantSchema } from './plant-schema.ts';
import type { NewPlant } from './types.ts';

/** Why a body is not a NewPlant: the error code and the message for the client. */
export interface PlantBodyProblem {
  readonly code: 'ERR_INVALID_UTF8' | 'ERR_INVALID_JSON' | 'ERR_INVALID_PLANT';
  /** The message for the client; the code's default when absent. */
  readonly message?: string;
}

// fatal: invalid UTF-8 is an error, never a silent U+FFFD. Stateless between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body as a NewPlant: strict UTF-8, then JSON, then the shape, with the `id`
 * taken exactly from its literal in the text (a double would round it).
 *
 * @param bytes The whole body, not empty.
 * @returns The plant (declared fields only), or the problem that stops it.
 */
export function readJsonPlant(bytes: Uint8Array): NewPlant | PlantBodyProblem {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { code: 'ERR_INVALID_UTF8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.slice(0, 200); // a long parser message is cut
    return { code: 'ERR_INVALID_JSON', message: `request body is not valid JSON: ${detail}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { code: 'ERR_INVALID_PLANT', message: 'request body must be a JSON object' };
  }
  const body = value as Record<string, unknown>;
  // The declared members only, with id read from its literal. Own-property checks keep
  // inherited names (from a polluted prototype, say) from counting as fields.
  const plant: Record<string, unknown> = {};
  if (Object.hasOwn(body, 'id')) {
    plant.id = typeof body.id === 'number' ? exactIdFromText(text, body.id) : body.id;
  }
  if (Object.hasOwn(body, 'name')) plant.name = body.name;
  if (Object.hasOwn(body, 'tag')) plant.tag = body.tag;
  // The usual valid plant passes the schema's own predicates and is taken as it is, without
  // valibot's walk, which costs more than the rest of the parse; valibot judges and words the
  // rest. JSON has no undefined, so an undefined tag is an absent one.
  if (
    isPlantId(plant.id) &&
    isPlantText(plant.name) &&
    (plant.tag === undefined || isPlantText(plant.tag))
  ) {
    return plant as unknown as NewPlant;
  }
  // No config: valibot's default reports every issue, and the first one, the one the client
  // sees, is the same as with abortEarly; the default costs no config object per call.
  const result = v.safeParse(NewPlantSchema, plant);
  if (result.success) return result.output;
  // The message names the field and the rule it broke: NewPlant is flat, so an issue's one path
  // item is the field (the schema is handed an object, so every issue has one).
  const [issue] = result.issues;
  return { code: 'ERR_INVALID_PLANT', message: `${issue.path?.[0].key} ${issue.message}` };
}

/** Text that opens with an `id` written as a plain integer, 19 digits at most, then a comma. */
const LEADING_ID = /^\{"id":-?\d{1,19},/;

/**
 * The value of the top-level `id` member of valid JSON text whose `id` is a number (`parsed`,
 * as `JSON.parse` read it): a `bigint` when the literal is an integer (clamped just outside the
 * int64 range when it is far beyond it, so the range check still fails), or `NaN` when it is
 * not an integer.
 */
function exactIdFromText(text: string, parsed: number): bigint | number {
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
  if (match === null) return NaN;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return 0n; // every spelling of zero, -0 included
  // value = digits × 10^exponent; Number() of a huge exponent is ±Infinity, which still
  // classifies right below.
  let exponent = Number(exponentText) - fraction.length;
  const significant = digits.replace(/0+$/, '');
  exponent += digits.length - significant.length;
  digits = significant;
  if (exponent < 0) return NaN;
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
