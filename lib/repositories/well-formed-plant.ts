// A lone surrogate has no UTF-8 form: a database would store U+FFFD in its place, and a replay
// would then read back a different plant.

import type { NewPlant } from '../types.ts';

/** The `TypeError` a repository refuses the plant with, or `undefined` when its text is fine. */
export function malformedText(plant: NewPlant, repository: string): TypeError | undefined {
  if (plant.name.isWellFormed() && (plant.tag === undefined || plant.tag.isWellFormed())) {
    return undefined;
  }
  const field = plant.name.isWellFormed() ? 'tag' : 'name';
  return new TypeError(
    `${repository}: the plant's ${field} is not well-formed UTF-16 (it holds a lone surrogate), so it cannot be stored as it is`,
  );
}
