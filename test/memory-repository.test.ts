import { createMemoryRepository } from '../lib/memory-repository.ts';
import { describeRepositoryConformance } from './_repository-conformance.ts';

describeRepositoryConformance('createMemoryRepository', async () => ({
  repository: createMemoryRepository(),
  cleanup: async () => {},
}));
