/**
 * `plant-store/testing`: the conformance kit. Hold a `PlantRepository` or `TokenVerifier` to the
 * contract in any test runner, and check a running server with `checkServer`. Loads no `node:*`.
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
