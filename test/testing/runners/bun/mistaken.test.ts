/**
 * A repository that rounds ids through `Number`, registered in `bun test`: the run must fail,
 * naming the int64 rule.
 *
 * @module
 */

import { test } from 'bun:test';
import { registerRepositoryConformance } from '../../../../lib/testing.ts';
import { roundsIdsThroughNumber } from '../../mistaken-repositories.ts';

registerRepositoryConformance(test, roundsIdsThroughNumber);
