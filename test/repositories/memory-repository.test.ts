import { describe, it } from 'node:test';
import { createMemoryRepository } from '../../lib/index.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';

describe('createMemoryRepository', () => {
  // The in-memory create is one synchronous step and does not read its signal (reading it makes
  // the store build an AbortController), as the contract allows: the defaults hold it to that.
  registerRepositoryConformance(it, () => createMemoryRepository());
});
