/**
 * Step 7 of the behaviour table, the shape (NewPlant): the id kept exactly over the whole int64
 * range, `name` and `tag`, and the fields ignored.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { plantRequest } from '../support/web-fakes.ts';
import { type CaseContext, defineCases, json, storedBy } from './context.ts';

/** The cases of step 7, the shape. */
export const shapeCases = defineCases('handleCreatePlant: 7. shape', (it) => {
  async function create(t: CaseContext, body: string, store = t.testStore()) {
    const response = await t.send(store.store.handleCreatePlant, plantRequest(body));
    return { response, ...store };
  }

  for (const body of ['[]', '[{"id":1,"name":"a"}]', '"plant"', '42', 'null', 'true']) {
    it(`answers 400 when the top level is ${body}, not an object`, async (t) => {
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'request body must be a JSON object',
      });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  const exactIds: Array<[string, bigint]> = [
    ['0', 0n],
    ['-0', 0n],
    ['-0.0e5', 0n],
    ['1.0', 1n],
    ['1e2', 100n],
    ['1E+2', 100n],
    ['10e-1', 1n],
    ['100e-2', 1n],
    ['0.5e1', 5n],
    ['12.50e1', 125n],
    ['9007199254740993', 9_007_199_254_740_993n],
    ['-9007199254740993', -9_007_199_254_740_993n],
    ['9223372036854775807', 9_223_372_036_854_775_807n],
    ['-9223372036854775808', -9_223_372_036_854_775_808n],
    ['9223372036854775807.000', 9_223_372_036_854_775_807n],
    ['922337203685477580.7e1', 9_223_372_036_854_775_807n],
    ['0.0000000000000000000000000000001e31', 1n],
  ];
  for (const [literal, id] of exactIds) {
    it(`stores id ${literal} exactly as ${id}`, async (t) => {
      const { response, repository } = await create(t, `{"id":${literal},"name":"a"}`);
      assert.equal(response.status, 200);
      assert.equal(storedBy(repository).id, id);
    });
  }

  const badIds = [
    '1.5',
    '1.0000000000000001',
    '0.1',
    '-1e-1',
    '1e-400',
    '9223372036854775808',
    '-9223372036854775809',
    '1e19',
    '1e400',
    '1e99999999999999999999',
    '"1"',
    'null',
    'true',
    '[1]',
    '{"value":1}',
  ];
  for (const literal of badIds) {
    it(`answers 400 naming id when id is ${literal}`, async (t) => {
      const { response, repository } = await create(t, `{"id":${literal},"name":"a"}`);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 400,
        message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
      });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  const badFields: Array<[string, string]> = [
    ['{"name":"a"}', 'id is required'],
    ['{"id":1}', 'name is required'],
    ['{"id":1,"name":null}', 'name must be a string'],
    ['{"id":1,"name":7}', 'name must be a string'],
    ['{"id":1,"name":["a"]}', 'name must be a string'],
    ['{"id":1,"name":"a","tag":null}', 'tag must be a string'],
    ['{"id":1,"name":"a","tag":false}', 'tag must be a string'],
    ['{"id":1,"name":"a\\u0000b"}', 'name must not contain U+0000'],
    ['{"id":1,"name":"a","tag":"\\u0000"}', 'tag must not contain U+0000'],
    ['{"id":1,"name":"\\ud800"}', 'name must be well-formed Unicode (no lone surrogates)'],
    ['{"id":1,"name":"a\\udfffb"}', 'name must be well-formed Unicode (no lone surrogates)'],
    ['{"id":1,"name":"a","tag":"\\udbff"}', 'tag must be well-formed Unicode (no lone surrogates)'],
    ['{"name":7}', 'id is required'],
  ];
  for (const [body, message] of badFields) {
    it(`answers 400 "${message}" to ${body}`, async (t) => {
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 400, message });
      assert.equal(repository.create.calls.length, 0);
    });
  }

  it('stores the empty string, escapes and astral characters exactly', async (t) => {
    for (const [name, tag] of [
      ['', ''],
      ['"quoted" \\ back/slash', '\u2028\n\t'],
      ['🌵\ud83c\udf35', 'e\u0301'],
    ]) {
      const { response, repository } = await create(t, json({ id: 1, name, tag }));
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { name, tag });
      assert.deepEqual(storedBy(repository), { id: 1n, name, tag });
    }
  });

  it('answers the Plant as the very text JSON.stringify gives, escapes and all', async (t) => {
    const { store } = t.testStore();
    const plants: Array<[string, string | undefined]> = [
      ['Monstera', undefined],
      ['Monstera deliciosa', 'aroid'],
      [' !#[]~', '"quoted" \\ back/slash'],
      ['\u007f\u0080\u00e9', '\u2028\n\t\u0001'],
      ['🌵', ''],
    ];
    for (const [i, [name, tag]] of plants.entries()) {
      const request = plantRequest(json({ id: i + 1, name, tag }));
      const response = await t.deliver(store.handleCreatePlant, request);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), JSON.stringify({ name, tag }), JSON.stringify(name));
    }
  });

  it('ignores and does not store fields it does not declare', async (t) => {
    const { response, repository } = await create(
      t,
      '{"id":1,"name":"a","extra":{"id":"x","name":"b"},"price":1e400,"owner":null}',
    );
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { name: 'a' });
    assert.deepEqual(Object.keys(storedBy(repository)).sort(), ['id', 'name']);
  });

  it('survives nesting as deep as the size limit allows in an ignored field', async (t) => {
    const depth = 50_000;
    const body = `{"id":1,"name":"a","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const { response, repository } = await create(t, body);
    assert.equal(response.status, 200);
    assert.equal(storedBy(repository).id, 1n);
  });

  it('is not fooled by __proto__ and constructor keys', async (t) => {
    const body = '{"__proto__":{"name":"evil","tag":"x"},"constructor":{"id":2},"id":1,"name":"a"}';
    const { response, repository } = await create(t, body);
    assert.equal(response.status, 200);
    assert.deepEqual(storedBy(repository), { id: 1n, name: 'a' });
    assert.equal(({} as Record<string, unknown>).name, undefined, 'no prototype was polluted');
  });

  it('does not take a name or tag from the prototype chain', async (t) => {
    const { response } = await create(t, '{"id":1,"__proto__":{"name":"inherited"}}');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 400, message: 'name is required' });
  });

  it('takes the last of a duplicated key, as JSON.parse does', async (t) => {
    const { repository } = await create(
      t,
      '{"id":1.5,"name":"a","id":2,"name":"b","tag":"x","tag":"y"}',
    );
    assert.deepEqual(storedBy(repository), { id: 2n, name: 'b', tag: 'y' });
    const rejected = await create(t, '{"id":2,"name":"a","id":2.5}');
    assert.equal(rejected.response.status, 400);
  });

  it('reads only the top-level id, whatever nested values and strings hold', async (t) => {
    const bodies: Array<[string, bigint]> = [
      ['{"x":{"id":1.5},"id":3,"name":"a"}', 3n],
      ['{"id":3,"x":{"id":1.5},"y":[{"id":9.5}],"name":"a"}', 3n],
      ['{"note":"\\"id\\":1.5,","id":4,"name":"\\"id\\": 2.5"}', 4n],
      ['{"a\\\\":"}","id" : \n 5 ,"name":"a"}', 5n],
      ['{"\\u0069d":6,"name":"a"}', 6n],
      ['{"id":7,"\\u0069d":9223372036854775807,"name":"a"}', 9_223_372_036_854_775_807n],
      ['{ "name" : "a" , "id" :\t-8 }', -8n],
    ];
    for (const [body, id] of bodies) {
      const { response, repository } = await create(t, body);
      assert.equal(response.status, 200, body);
      assert.equal(storedBy(repository).id, id, body);
    }
  });

  it('treats every spelling of one id as that id', async (t) => {
    const store = t.testStore();
    for (const literal of ['1', '1.0', '1e0', '10e-1', '0.1e1']) {
      const { response } = await create(t, `{"id":${literal},"name":"a"}`, store);
      assert.equal(response.status, 200, literal);
    }
    const { response } = await create(t, '{"id":1e0,"name":"b"}', store);
    assert.equal(response.status, 409);
    await create(t, '{"id":-0,"name":"zero"}', store);
    assert.equal((await create(t, '{"id":0,"name":"zero"}', store)).response.status, 200);
    assert.equal((await create(t, '{"id":0,"name":"other"}', store)).response.status, 409);
  });
});
