import * as v from 'valibot';

/** The smallest id: -2^63. */
export const INT64_MIN = -9223372036854775808n;
/** The largest id: 2^63 - 1. */
export const INT64_MAX = 9223372036854775807n;

const INT64_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

const isWellFormed = (text: string): boolean => text.isWellFormed();
const hasNoNul = (text: string): boolean => !text.includes('\0');

/** Whether a value is a `bigint` in the int64 range; the schema's check, and the fast path's. */
export function isPlantId(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** The schema's `name` and `tag` rules as one predicate, for the fast path. */
export function isPlantText(value: unknown): value is string {
  return typeof value === 'string' && isWellFormed(value) && hasNoNul(value);
}

function plantText() {
  return v.pipe(
    v.string('must be a string'),
    v.check(isWellFormed, 'must be well-formed Unicode (no lone surrogates)'),
    v.check(hasNoNul, 'must not contain U+0000'),
  );
}

/**
 * The valibot schema of a NewPlant whose `id` was read exactly, as a `bigint` (range-checked
 * here). Undeclared keys are dropped; an issue reads `<field> <message>`: `name must be a string`.
 */
export const NewPlantSchema = v.object(
  {
    // One check rather than minValue + maxValue: one rule, two fewer valibot actions to ship.
    id: v.pipe(v.bigint(INT64_RULE), v.check<bigint, typeof INT64_RULE>(isPlantId, INT64_RULE)),
    name: plantText(),
    tag: v.exactOptional(plantText()),
  },
  'is required',
);
