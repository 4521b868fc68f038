import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRepository } from '../../lib/index.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';

describe('createMemoryRepository', () => {
  // The in-memory create is one synchronous step and does not read its signal (reading it makes
  // the store build an AbortController), as the contract allows: the defaults hold it to that.
  registerRepositoryConformance(it, () => createMemoryRepository());

  it('refuses with a TypeError, storing nothing, a name or tag that is not well-formed UTF-16', () => {
    const repository = createMemoryRepository();
    const context = { signal: new AbortController().signal };
    assert.deepEqual(repository.create({ id: 1n, name: 'stored' }, context), { created: true });
    for (const [field, plant] of [
      ['name', { id: 2n, name: 'lone \uD800 high' }],
      ['name', { id: 2n, name: '\uDC00' }],
      ['tag', { id: 2n, name: 'fine', tag: 'cut \uD83C' }],
      // A replay of a stored id with such a name is refused too, not answered as a conflict.
      ['name', { id: 1n, name: 'stored\uDFFF' }],
    ] as const) {
      assert.throws(() => repository.create(plant, context), {
        name: 'TypeError',
        message: `createMemoryRepository: the plant's ${field} is not well-formed UTF-16 (it holds a lone surrogate), so it cannot be stored as it is`,
      });
    }
    assert.deepEqual(repository.create({ id: 2n, name: 'a 🌿 pair' }, context), {
      created: true,
    });
  });
});
