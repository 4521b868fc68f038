/**
 * A repository that rounds ids through `Number`, registered with Vitest's `it`: the run must
 * fail, naming the int64 rule.
 *
 * @module
 */

import { it } from 'vitest';
import { registerRepositoryConformance } from '../../../../lib/testing.ts';
import { roundsIdsThroughNumber } from '../../mistaken-repositories.ts';

registerRepositoryConformance(it, roundsIdsThroughNumber);
