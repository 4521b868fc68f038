/**
 * The behaviour contract as one runtime-neutral case list, gathered from the files beside this
 * one in the order the contract lists its rules: construction, the operation's steps 1 to 8, the
 * routes of `fetch`, CORS, then the diagnostics channels. `test/store/create-plant-store.test.ts` runs it under `node:test`;
 * `test/runtimes/{node,deno,bun}.ts` run it on Node 22 and 24, Deno and Bun, directly and over
 * HTTP. The cases take the library as an argument (the source or the built `dist/`) through
 * their context (`context.ts`).
 *
 * @module
 */

import { methodCases } from './1-method.ts';
import { authenticationCases } from './2-authentication.ts';
import { bodyPresentCases } from './3-body-present.ts';
import { mediaTypeCases } from './4-media-type.ts';
import { sizeCases } from './5-size.ts';
import { decodingCases } from './6-decoding.ts';
import { shapeCases } from './7-shape.ts';
import { deadlineCases } from './8-deadline.ts';
import { storeCases } from './8-store.ts';
import { readFirstCases } from './body-read-first.ts';
import { hostileAnswerCases } from './hostile-answers.ts';
import type { ConformanceCase } from './context.ts';
import { corsCases } from './cors.ts';
import { diagnosticsCases } from './diagnostics.ts';
import { optionCases } from './options.ts';
import { routeCases } from './routes.ts';

/** Every rule of the contract, in the order the contract lists them. */
export const conformanceCases: readonly ConformanceCase[] = [
  ...optionCases,
  ...methodCases,
  ...authenticationCases,
  ...bodyPresentCases,
  ...mediaTypeCases,
  ...sizeCases,
  ...readFirstCases,
  ...decodingCases,
  ...shapeCases,
  ...storeCases,
  ...hostileAnswerCases,
  ...deadlineCases,
  ...routeCases,
  ...corsCases,
  ...diagnosticsCases,
];
