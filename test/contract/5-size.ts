/**
 * Step 5 of the behaviour table, the size: over `maxBodyBytes` is a `413`, refused from the
 * declared length before reading or counted while the body streams.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { countingStream, endlessChunks, plantRequest } from '../support/web-fakes.ts';
import {
  defineCases,
  encoder,
  FAILS_STREAM,
  json,
  SETS_LENGTH,
  storedBy,
  WATCHES_STREAM,
} from './context.ts';

/** The cases of step 5, the size. */
export const sizeCases = defineCases('handleCreatePlant: 5. size', (it) => {
  const tooLarge = { error: 413, message: 'request body is larger than 102400 bytes' };

  it(
    'answers 413 to a Content-Length over the limit without reading the body',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream, state } = countingStream(endlessChunks(1024));
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(stream, { 'content-length': '102401' }),
      );
      assert.equal(response.status, 413);
      assert.deepEqual(response.body, tooLarge);
      assert.equal(state.pulled, 0);
      assert.equal(repository.create.calls.length, 0);
    },
    SETS_LENGTH,
  );

  it(
    'answers 413 to a streamed body over the limit and stops reading at the limit',
    async (t) => {
      const { store, repository } = t.testStore();
      const { stream, state } = countingStream(endlessChunks(4096));
      const response = await t.send(store.handleCreatePlant, plantRequest(stream));
      assert.equal(response.status, 413);
      assert.deepEqual(response.body, tooLarge);
      assert.ok(state.pulled <= 102_400 + 4096, `pulled ${state.pulled} bytes`);
      assert.equal(state.cancelled, true, 'the rest of the stream is cancelled');
      assert.equal(repository.create.calls.length, 0);
    },
    WATCHES_STREAM,
  );

  it('accepts a body of exactly maxBodyBytes and refuses one byte more', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 64 });
    const plant = json({ id: 1, name: 'a' });
    const exact = plant.padEnd(64, ' ');
    const ok = await t.send(store.handleCreatePlant, plantRequest(exact));
    assert.equal(ok.status, 200);
    const over = await t.send(store.handleCreatePlant, plantRequest(`${exact} `));
    assert.equal(over.status, 413);
    assert.deepEqual(over.body, { error: 413, message: 'request body is larger than 64 bytes' });
  });

  it(
    'answers 400 when a body built in process is longer or shorter than its Content-Length',
    async (t) => {
      // A server frames a body by its Content-Length; only a host's own Request can disagree.
      const { store, repository } = t.testStore({ maxBodyBytes: 1000 });
      const plant = json({ id: 1, name: 'a' });
      for (const declared of [plant.length - 1, plant.length + 1]) {
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(plant, { 'content-length': String(declared) }),
        );
        assert.equal(response.status, 400, String(declared));
        assert.deepEqual(response.body, {
          error: 400,
          message: 'request body length does not match its Content-Length',
        });
      }
      assert.equal(repository.create.calls.length, 0);
    },
    SETS_LENGTH,
  );

  it(
    'reads the body when Content-Length is not plain digits: such a header declares nothing',
    async (t) => {
      // "1e9" and "+99999999" would be over the limit as numbers, "0x0" zero: none is a length.
      for (const length of ['1e9', '+99999999', '0x0']) {
        const { store, repository } = t.testStore();
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(json({ id: 4, name: 'a' }), { 'content-length': length }),
        );
        assert.equal(response.status, 200, length);
        assert.deepEqual(storedBy(repository), { id: 4n, name: 'a' });
      }
    },
    SETS_LENGTH,
  );

  it('reads a body that arrives in many chunks, a character split across two', async (t) => {
    const { store, repository } = t.testStore();
    const bytes = encoder.encode(json({ id: 3, name: 'a€b', tag: 'tag' }));
    const split = bytes.indexOf(0xe2) + 1; // inside the three bytes of €
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, split), bytes.subarray(split)];
    const { stream } = countingStream(chunks);
    const response = await t.send(store.handleCreatePlant, plantRequest(stream));
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 3n, name: 'a€b', tag: 'tag' });
  });

  // Read as a stream, or whole when the length is declared; once the read has begun the body is
  // used, so its failure must not pass for a body a host read first.
  for (const [framing, headers] of [
    ['', {}],
    [', the length declared', { 'content-length': '20' }],
  ] as const) {
    it(
      `answers 500 and reports the error when the body stream fails midway${framing}`,
      async (t) => {
        const { store, repository, onError } = t.testStore();
        let sent = false;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent) controller.error(new Error('disk gone'));
            else controller.enqueue(encoder.encode('{"id":1,'));
            sent = true;
          },
        });
        const response = await t.send(store.handleCreatePlant, plantRequest(stream, headers));
        assert.equal(response.status, 500);
        assert.deepEqual(response.body, { error: 500, message: 'internal error' });
        assert.equal(onError.calls.length, 1);
        assert.match(String(onError.calls[0]?.[0]), /disk gone/);
        assert.equal(repository.create.calls.length, 0);
      },
      FAILS_STREAM,
    );
  }

  it('answers 413 when the characters fit the limit but their UTF-8 bytes do not', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 40 });
    // 30 characters, but the name is 10 × 3 bytes: 50 bytes.
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: '€'.repeat(10) })),
    );
    assert.equal(response.status, 413);
  });
});
