import { describe, it } from 'node:test';
import { createMemoryRepository } from '../../lib/index.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';

describe('createMemoryRepository', () => {
  registerRepositoryConformance(it, () => createMemoryRepository(), {
    // The in-memory create is one synchronous step and does not read its signal (reading it makes
    // the store build an AbortController); it is held to telling the truth about what it stored.
    honoursAbortedSignal: false,
  });
});
