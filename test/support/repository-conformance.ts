/**
 * The repository conformance suite under its old name: the checks themselves ship in
 * `plant-store/testing` (`lib/testing/`); this wraps them in a `describe` block for tests
 * written before the kit. New tests call `registerRepositoryConformance(it, …)` directly.
 *
 * @module
 */

import { describe, it } from 'node:test';
import {
  type MakeRepository,
  type RepositoryConformanceOptions,
  registerRepositoryConformance,
} from '../../lib/testing.ts';

export type { RepositoryConformanceOptions, RepositoryFixture } from '../../lib/testing.ts';

/**
 * Registers the kit's repository checks under `describe(name)`.
 *
 * @param name The describe block's title, e.g. `'createMemoryRepository'`.
 * @param factory Builds a fresh, empty repository (or `{ repository, cleanup }`) for each test.
 * @param options What the repository is held to.
 * @example
 * ```ts
 * describeRepositoryConformance('createMemoryRepository', () => createMemoryRepository(), {
 *   honoursAbortedSignal: false,
 * });
 * ```
 */
export function describeRepositoryConformance(
  name: string,
  factory: MakeRepository,
  options: RepositoryConformanceOptions = {},
): void {
  describe(name, () => registerRepositoryConformance(it, factory, options));
}
