/**
 * Step 6 of the behaviour table, decoding: strict UTF-8 and valid JSON, or a `400` that says
 * what is wrong.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { plantRequest } from '../support/web-fakes.ts';
import { defineCases, encoder, json, storedBy } from './context.ts';

/** The cases of step 6, decoding. */
export const decodingCases = defineCases('handleCreatePlant: 6. decoding', (it) => {
  const invalidUtf8 = {
    'a lone continuation byte': [0x80],
    'an 0xFF byte': [0xff],
    'an overlong encoding of "/"': [0xc0, 0xaf],
    'an encoded surrogate': [0xed, 0xa0, 0x80],
    'a truncated sequence': [0xe2, 0x82],
  };
  for (const [name, bytes] of Object.entries(invalidUtf8)) {
    it(`answers 400 to ${name} inside a string, never replacing it`, async (t) => {
      const { store, repository } = t.testStore();
      const body = new Uint8Array([
        ...encoder.encode('{"id":1,"name":"a'),
        ...bytes,
        ...encoder.encode('"}'),
      ]);
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message: 'request body is not valid UTF-8' });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('skips a byte order mark at the start of the body but keeps U+FEFF inside a string', async (t) => {
    const { store, repository } = t.testStore();
    const body = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode(json({ id: 1, name: '\ufeffa' })),
    ]);
    const response = await t.send(store.handleCreatePlant, plantRequest(body));
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).name, '\ufeffa');
  });

  it('keeps multi-byte UTF-8 exactly', async (t) => {
    const { store, repository } = t.testStore();
    const name = 'Ficus 🌿 µ 漢字 é';
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(encoder.encode(json({ id: 1, name }))),
    );
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).name, name);
  });

  const invalidJson = [
    '{',
    '{"id":1,"name":"a"',
    '{"id":1,}',
    "{'id':1}",
    '{"id":01,"name":"a"}',
    '   ',
    '{"id":1,"name":"a"}x',
    'NaN',
    '{"id":NaN,"name":"a"}',
    '{"id":+1,"name":"a"}',
    '{"id":.5,"name":"a"}',
    '{"id":1,"name":"a\tb"}',
  ];
  for (const body of invalidJson) {
    it(`answers 400 with a message saying what is wrong to ${JSON.stringify(body)}`, async (t) => {
      const { store, repository } = t.testStore();
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 400);
      const { message } = response.body as { message: string };
      assert.match(message, /^request body is not valid JSON: \S/);
      assert.equal(repository.create.calls.length, 0);
    });
  }
});
