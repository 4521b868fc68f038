/**
 * Step 4 of the behaviour table, the media type: `application/json` (charset `utf-8`, if
 * given), or a `415`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { plantRequest, TOKEN } from '../support/web-fakes.ts';
import { defineCases, encoder, json } from './context.ts';

/** The cases of step 4, the media type. */
export const mediaTypeCases = defineCases('handleCreatePlant: 4. media type', (it) => {
  const accepted = [
    'application/json',
    'APPLICATION/JSON',
    'Application/Json ; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=utf-8; profile=plant',
    'application/json;',
  ];
  const refused = [
    'text/plain',
    'text/json',
    'application/jsonx',
    'application/json-patch+json',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=utf8',
    'application/json; x',
    // An empty parameter does not end the check: the charset after it still counts.
    'application/json;;charset=latin1',
    'application/json; ; charset=iso-8859-1',
    '',
  ];
  for (const contentType of accepted) {
    it(`accepts Content-Type: ${contentType}`, async (t) => {
      const { store } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 200);
    });
  }
  for (const contentType of refused) {
    it(`answers 415 to Content-Type: ${JSON.stringify(contentType)}`, async (t) => {
      const { store, repository } = t.testStore();
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-type': contentType }),
      );
      assert.equal(response.status, 415);
      assert.deepEqual(response.body, {
        error: 415,
        message: 'content type must be application/json (charset utf-8, if given)',
      });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('answers 415 when there is no Content-Type at all', async (t) => {
    const { store } = t.testStore();
    const body = encoder.encode(json({ id: 1, name: 'a' })); // bytes get no default type
    const request = new Request('http://localhost/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body,
    });
    assert.equal(request.headers.get('content-type'), null);
    const response = await t.send(store.handleCreatePlant, request);
    assert.equal(response.status, 415);
  });

  for (const encoding of ['gzip', 'br', 'deflate', 'identity, gzip', 'x-made-up']) {
    it(`answers 415, never decoding the body as if plain, to Content-Encoding: ${encoding}`, async (t) => {
      const { store, repository } = t.testStore();
      const response = await t.send(
        store.fetch,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-encoding': encoding }),
      );
      assert.equal(response.status, 415);
      assert.deepEqual(response.body, {
        error: 415,
        message: 'request bodies must not be content-coded (Content-Encoding: identity)',
      });
      assert.equal(response.headers.get('accept-encoding'), 'identity');
      assert.equal(repository.create.calls.length, 0);
    });
  }

  for (const encoding of ['identity', 'IDENTITY', ' identity ', '']) {
    it(`accepts Content-Encoding: ${JSON.stringify(encoding)}`, async (t) => {
      const { store } = t.testStore();
      const response = await t.send(
        store.fetch,
        plantRequest(json({ id: 1, name: 'a' }), { 'content-encoding': encoding }),
      );
      assert.equal(response.status, 200);
    });
  }

  it('answers 415, not 413, when a body over the limit has the wrong media type', async (t) => {
    const { store } = t.testStore({ maxBodyBytes: 10 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest('x'.repeat(100), { 'content-type': 'text/plain' }),
    );
    assert.equal(response.status, 415);
  });
});
