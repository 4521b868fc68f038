import * as v from 'valibot';

/**
 * The smallest plant id: -2^63, the int64 minimum.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { INT64_MIN, NewPlantSchema } from 'plant-store';
 *
 * v.is(NewPlantSchema, { id: INT64_MIN - 1n, name: 'Fern' }); // false
 * ```
 */
export const INT64_MIN = -9223372036854775808n;
/**
 * The largest plant id: 2^63 - 1, the int64 maximum.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { INT64_MAX, NewPlantSchema } from 'plant-store';
 *
 * v.is(NewPlantSchema, { id: INT64_MAX, name: 'Fern' }); // true
 * ```
 */
export const INT64_MAX = 9223372036854775807n;

const INT64_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

const isWellFormed = (text: string): boolean => text.isWellFormed();
const hasNoNul = (text: string): boolean => !text.includes('\0');

/** Whether a value is a `bigint` in the int64 range; the schema's check, and the fast path's. */
export function isPlantId(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

function plantText() {
  return v.pipe(
    v.string('must be a string'),
    v.check(isWellFormed, 'must be well-formed Unicode (no lone surrogates)'),
    v.check(hasNoNul, 'must not contain U+0000'),
  );
}

/**
 * The valibot schema of a NewPlant whose `id` was read exactly, as a `bigint`.
 *
 * `id` must be in the int64 range; `name` and the optional `tag` must be well-formed strings
 * without U+0000. Undeclared keys are dropped. Each message follows its field's name, as a `400`
 * words it: `name must be a string`.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { NewPlantSchema } from 'plant-store';
 *
 * v.parse(NewPlantSchema, { id: 1n, name: 'Fern', extra: true }); // { id: 1n, name: 'Fern' }
 * ```
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
