/**
 * A repository that rounds ids through `Number`, registered with Jest's `it`: the run must
 * fail, naming the int64 rule.
 *
 * @module
 */

import { it } from '@jest/globals';
import { registerRepositoryConformance } from '../.kit/testing.js';

/** Keys plants by `Number(id)`, as a driver or column that holds a double would. */
function roundsIdsThroughNumber() {
  const plants = new Map();
  return {
    async create(plant, { signal }) {
      signal.throwIfAborted();
      const existing = plants.get(Number(plant.id));
      if (existing !== undefined) return { created: false, existing };
      plants.set(
        Number(plant.id),
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return { created: true };
    },
  };
}

registerRepositoryConformance(it, roundsIdsThroughNumber);
