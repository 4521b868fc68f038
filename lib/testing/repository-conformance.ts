import { checkOptionNames } from '../guards/check-option-names.ts';
import {
  type ConformanceReport,
  checkCount,
  type RunnerTest,
  registerChecks,
  runChecks,
} from './report.ts';
import { repositoryChecks } from './repository-checks.ts';
import {
  type MakeRepository,
  REPOSITORY_OPTION_NAMES,
  type RepositoryConformanceOptions,
} from './repository-fixture.ts';

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Holds a `PlantRepository` to the contract and reports what held, in any test runner or none.
 *
 * Each check gets a fresh, empty repository from `makeRepository` and runs its cleanup after. The
 * checks cover the outcomes (created, replay, conflict), exact text and int64 ids, one winner
 * among concurrent creates, the context and the shape of every answer. Each failure's message
 * begins with the rule it broke.
 *
 * @param makeRepository Builds a fresh, empty repository, or `{ repository, cleanup }`.
 * @param options What the repository is held to.
 * @returns The report: the checks that passed, and the failures with their errors.
 * @throws {TypeError} When `makeRepository` is not a function, or an option is unknown or out of
 *   range.
 * @example
 * ```ts
 * import { createMemoryRepository } from 'plant-store';
 * import { runRepositoryConformance } from 'plant-store/testing';
 *
 * const report = await runRepositoryConformance(() => createMemoryRepository());
 * for (const { error } of report.failed) console.error(error.message);
 * ```
 */
export async function runRepositoryConformance<Principal = unknown>(
  makeRepository: MakeRepository<Principal>,
  options: RepositoryConformanceOptions<Principal> = {},
): Promise<ConformanceReport> {
  const checks = repositoryChecks(
    checkedFactory('runRepositoryConformance', makeRepository, options),
    options,
  );
  return runChecks(checks, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

/**
 * Registers each check of `runRepositoryConformance` as one test of the host's runner.
 *
 * Pass `test` from `node:test` or `bun:test`, `it` from Vitest or Jest, or `Deno.test`, and call
 * it where tests are declared (a test file's top level, or inside `describe`).
 *
 * @param test The runner's `(name, fn)` registration function.
 * @param makeRepository Builds a fresh, empty repository for each test.
 * @param options What the repository is held to.
 * @throws {TypeError} When `test` or `makeRepository` is not a function or an option is unknown.
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import { createMemoryRepository } from 'plant-store';
 * import { registerRepositoryConformance } from 'plant-store/testing';
 *
 * registerRepositoryConformance(test, () => createMemoryRepository());
 * ```
 */
export function registerRepositoryConformance<Principal = unknown>(
  test: RunnerTest,
  makeRepository: MakeRepository<Principal>,
  options: RepositoryConformanceOptions<Principal> = {},
): void {
  if (typeof test !== 'function') {
    throw new TypeError("registerRepositoryConformance needs the runner's test function first");
  }
  const make = checkedFactory('registerRepositoryConformance', makeRepository, options);
  registerChecks(test, repositoryChecks(make, options), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

function checkedFactory<Principal>(
  caller: string,
  makeRepository: MakeRepository<Principal>,
  options: RepositoryConformanceOptions<Principal>,
): MakeRepository<Principal> {
  if (typeof makeRepository !== 'function') {
    throw new TypeError(`${caller} needs a function that makes a fresh repository`);
  }
  if (options !== null && typeof options === 'object' && 'honoursAbortedSignal' in options) {
    throw new TypeError(
      `${caller}: honoursAbortedSignal is retired: by default a repository may now answer as usual when its signal has already fired, as long as the answer is true (what honoursAbortedSignal: false asked); rejectsWithSignalReason: true asks for a rejection with the signal's reason`,
    );
  }
  checkOptionNames(caller, options, REPOSITORY_OPTION_NAMES);
  checkCount(caller, 'racers', options.racers, 2);
  checkCount(caller, 'timeoutMs', options.timeoutMs);
  const second = options.makeSecondInstance;
  if (second !== undefined && typeof second !== 'function') {
    throw new TypeError(`${caller}: makeSecondInstance must be a function`);
  }
  return makeRepository;
}
