/**
 * Step 3 of the behaviour table, body present: no body, or an empty one, is a `400`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { countingStream, plantRequest } from '../support/web-fakes.ts';
import { defineCases, encoder, SETS_LENGTH, WATCHES_STREAM } from './context.ts';

/** The cases of step 3, body present. */
export const bodyPresentCases = defineCases('handleCreatePlant: 3. body present', (it) => {
  it('answers 400 "request body is required" when there is no body', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(store.handleCreatePlant, plantRequest(null));
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'answers 400 when Content-Length is 0, without reading',
    async (t) => {
      const { store } = t.testStore();
      const { stream, state } = countingStream([encoder.encode('{}')]);
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(stream, { 'content-length': '0' }),
      );
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
      assert.equal(state.pulled, 0);
    },
    SETS_LENGTH,
  );

  it(
    'answers 400 when a streamed body turns out empty',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream } = countingStream([new Uint8Array(0)]);
      const response = await t.send(store.handleCreatePlant, plantRequest(stream));
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is required' });
      assert.equal(repository.create.calls.length, 0);
    },
    WATCHES_STREAM,
  );

  it('answers 400, not 415, when there is no body and the media type is wrong', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(null, { 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 400);
  });
});
