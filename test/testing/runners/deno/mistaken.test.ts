/// <reference lib="deno.ns" />
/**
 * A repository that rounds ids through `Number`, registered with `Deno.test`: the run must
 * fail, naming the int64 rule.
 *
 * @module
 */

import { registerRepositoryConformance } from '../../../../lib/testing.ts';
import { roundsIdsThroughNumber } from '../../mistaken-repositories.ts';

registerRepositoryConformance(Deno.test, roundsIdsThroughNumber);
