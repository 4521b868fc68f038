import { createMemoryRepository } from '../../lib/index.ts';
import { describeRepositoryConformance } from '../support/repository-conformance.ts';

describeRepositoryConformance(
  'createMemoryRepository',
  async () => ({ repository: createMemoryRepository(), cleanup: async () => {} }),
  // The in-memory create is one synchronous step and does not read its signal (reading it makes
  // the store build an AbortController); it is held to telling the truth about what it stored.
  { honoursAbortedSignal: false },
);
