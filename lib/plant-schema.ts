import * as v from 'valibot';

/** The smallest id: -2^63. */
export const INT64_MIN = -9223372036854775808n;
/** The largest id: 2^63 - 1. */
export const INT64_MAX = 9223372036854775807n;

const INT64_RULE = 'must be an integer from -9223372036854775808 to 9223372036854775807';

/**
 * Builds the valibot pipeline of a plant's text field: a string, well-formed Unicode (no lone
 * surrogates) and free of U+0000. Anything else, `''` included, is kept exactly.
 */
function plantText() {
  return v.pipe(
    v.string('must be a string'),
    // String.prototype.isWellFormed is in every runtime plant-store supports (Node 20+, Deno, Bun).
    v.check((text) => text.isWellFormed(), 'must be well-formed Unicode (no lone surrogates)'),
    v.check((text) => !text.includes('\0'), 'must not contain U+0000'),
  );
}

/**
 * The valibot schema of a NewPlant once its `id` has been read exactly: `id` is a `bigint` (an
 * integer literal of any size, range-checked here), `name` a string, `tag` an optional string.
 * Keys it does not declare are dropped from the output.
 *
 * The `object` message is the one valibot gives for a missing key; issues are worded as
 * `<field> <rule>` by `describePlantIssue`.
 *
 * @example
 * ```ts
 * v.safeParse(NewPlantSchema, { id: 1n, name: 'Fern' }); // success, output { id: 1n, name: 'Fern' }
 * ```
 */
export const NewPlantSchema = v.object(
  {
    // One check rather than minValue + maxValue: the same rule, two fewer valibot actions to ship.
    id: v.pipe(
      v.bigint(INT64_RULE),
      v.check((id) => id >= INT64_MIN && id <= INT64_MAX, INT64_RULE),
    ),
    name: plantText(),
    tag: v.exactOptional(plantText()),
  },
  'is required',
);

/**
 * Words the first issue of a failed `NewPlantSchema` parse for the client, naming the field and
 * the rule it broke, for example `name must be a string`.
 *
 * @param issue The issue valibot reported.
 * @returns The message of the 400 response.
 */
export function describePlantIssue(issue: v.BaseIssue<unknown>): string {
  const field = issue.path?.map((item) => String(item.key)).join('.') ?? 'body';
  return `${field} ${issue.message}`;
}
