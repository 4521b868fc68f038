/**
 * `plant-store/testing`: the conformance kit. Hold your own `PlantRepository` and
 * `TokenVerifier` to the contract (a report, or one test each in `node:test`, Vitest, Jest,
 * `bun test` or `Deno.test`), and check any running server that claims the Plant Store API
 * (`checkServer`, and the `plant-store conform` command). Runtime-neutral: nothing here loads
 * `node:*`.
 *
 * @module
 */

export type { CheckServerOptions } from './testing/check-server.ts';
export { checkServer } from './testing/check-server.ts';
export type { CheckResult, ConformanceReport, RunnerTest } from './testing/report.ts';
export { ConformanceError } from './testing/report.ts';
export {
  registerRepositoryConformance,
  runRepositoryConformance,
} from './testing/repository-conformance.ts';
export type {
  MakeRepository,
  RepositoryConformanceOptions,
  RepositoryFixture,
} from './testing/repository-fixture.ts';
export type { MakeVerifier, VerifierCases } from './testing/verifier-conformance.ts';
export {
  registerVerifierConformance,
  runVerifierConformance,
} from './testing/verifier-conformance.ts';
