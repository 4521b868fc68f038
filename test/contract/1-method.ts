/**
 * Step 1 of the behaviour table, the method: anything but `POST` is a `405` with `Allow: POST`,
 * before authentication.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { defineCases } from './context.ts';

/** The cases of step 1, the method. */
export const methodCases = defineCases('handleCreatePlant: 1. method', (it) => {
  for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    it(`answers 405 with Allow: POST to ${method}, before authentication`, async (t) => {
      const { store, repository } = t.testStore();
      const request = new Request('http://localhost/plants', { method });
      const response = await t.deliver(store.handleCreatePlant, request);
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(response.headers.get('content-type'), 'application/json');
      if (method !== 'HEAD') {
        assert.deepEqual(await response.json(), { error: 405, message: 'method not allowed' });
      }
      assert.equal(repository.create.calls.length, 0);
    });
  }
});
