/**
 * Test helpers for `node:test` on Node: a store over a recording repository (its `create` a
 * `mock.fn`) and the runtime-neutral helpers of `web-fakes.ts`.
 *
 * @module
 */

import { mock } from 'node:test';
import {
  type CreatePlantStoreOptions,
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
  type PlantRepository,
  type PlantStore,
} from '../../lib/index.ts';
import { TOKEN } from './web-fakes.ts';

export {
  countingStream,
  endlessChunks,
  never,
  plantRequest,
  type SeenResponse,
  send,
  TOKEN,
} from './web-fakes.ts';

/** An in-memory repository whose `create` is a mock, so tests can count and inspect calls. */
export function recordingRepository(inner: PlantRepository = createMemoryRepository()) {
  return { create: mock.fn(inner.create.bind(inner)) } satisfies PlantRepository;
}

/** A store over a recording repository and the static verifier for `TOKEN`. */
export function testStore(options: Partial<CreatePlantStoreOptions> = {}) {
  const repository = recordingRepository();
  const onError = mock.fn((_error: unknown) => {});
  const store: PlantStore = createPlantStore({
    repository,
    verifier: createStaticTokenVerifier([TOKEN]),
    onError,
    ...options,
  });
  return { store, repository, onError };
}
