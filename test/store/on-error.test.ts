/**
 * `createPlantStore`'s `onError` when it fails itself: the client still gets its answer, and the
 * failure is written to stderr once rather than lost or thrown into the host's process.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';

function failingCreate(): Request {
  return new Request('http://x/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id": 1, "name": "a"}',
  });
}

const brokenRepository = {
  create(): never {
    throw new Error('disk on fire');
  },
};

describe('createPlantStore onError', () => {
  for (const [kind, onError] of [
    [
      'throws',
      () => {
        throw new Error('onError broke');
      },
    ],
    [
      'rejects',
      async () => {
        throw new Error('onError broke');
      },
    ],
  ] as const) {
    it(`writes the failure to stderr once when onError ${kind}`, async (t) => {
      const stderr = t.mock.method(console, 'error', () => {});
      const store = createPlantStore({
        verifier: createStaticTokenVerifier(['t']),
        repository: brokenRepository,
        onError,
      });
      const response = await store.fetch(failingCreate());
      assert.equal(response.status, 500);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(stderr.mock.callCount(), 1);
      assert.match(String(stderr.mock.calls[0]?.arguments[0]), /onError failed/);
      assert.match(String(stderr.mock.calls[0]?.arguments[1]), /onError broke/);
    });
  }
});
