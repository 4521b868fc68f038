import * as v from 'valibot';

/** The smallest id: -2^63. */
export const INT64_MIN = -9223372036854775808n;
/** The largest id: 2^63 - 1. */
export const INT64_MAX = 9223372036854775807n;

const INT64_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

// String.prototype.isWellFormed is in every runtime plant-store supports (Node 20+, Deno, Bun).
/** Whether a text is well-formed Unicode: no lone surrogates. */
const isWellFormed = (text: string): boolean => text.isWellFormed();
/** Whether a text is free of U+0000. */
const hasNoNul = (text: string): boolean => !text.includes('\0');

/**
 * Whether a value is a valid plant id, a `bigint` in the int64 range: the schema's range check,
 * and the create path's check of the usual valid body.
 */
export function isPlantId(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * Whether a value is a valid plant text field: the schema's `name` and `tag` rules as one
 * predicate, for the create path's check of the usual valid body.
 */
export function isPlantText(value: unknown): value is string {
  return typeof value === 'string' && isWellFormed(value) && hasNoNul(value);
}

/**
 * Builds the valibot pipeline of a plant's text field: a string, well-formed Unicode (no lone
 * surrogates) and free of U+0000. Anything else, `''` included, is kept exactly.
 */
function plantText() {
  return v.pipe(
    v.string('must be a string'),
    v.check(isWellFormed, 'must be well-formed Unicode (no lone surrogates)'),
    v.check(hasNoNul, 'must not contain U+0000'),
  );
}

/**
 * The valibot schema of a NewPlant once its `id` has been read exactly: `id` is a `bigint` (an
 * integer literal of any size, range-checked here), `name` a string, `tag` an optional string.
 * Keys it does not declare are dropped from the output.
 *
 * The `object` message is the one valibot gives for a missing key; the create path words an
 * issue as `<field> <rule>`, for example `name must be a string`.
 *
 * @example
 * ```ts
 * v.safeParse(NewPlantSchema, { id: 1n, name: 'Fern' }); // success, output { id: 1n, name: 'Fern' }
 * ```
 */
export const NewPlantSchema = v.object(
  {
    // One check rather than minValue + maxValue: the same rule, two fewer valibot actions to ship.
    id: v.pipe(v.bigint(INT64_RULE), v.check<bigint, typeof INT64_RULE>(isPlantId, INT64_RULE)),
    name: plantText(),
    tag: v.exactOptional(plantText()),
  },
  'is required',
);
