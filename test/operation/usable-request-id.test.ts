import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUsableRequestId, usableRequestId } from '../../lib/operation/usable-request-id.ts';

describe('usableRequestId', () => {
  it('keeps an id of 1-200 visible ASCII characters as it is', () => {
    for (const id of ['a', 'req-42', '3f9a0c71e2b4-2a', '!~', 'r'.repeat(200)]) {
      assert.equal(usableRequestId(id), id);
      assert.equal(isUsableRequestId(id), true);
    }
  });

  it('drops an id that is empty, longer than 200 characters or not visible ASCII', () => {
    for (const id of [
      '',
      'r'.repeat(201),
      'x'.repeat(12_000),
      'a b',
      'a\tb',
      'a\nb',
      'a\u0000',
      'é',
      'a\u007f',
    ]) {
      assert.equal(usableRequestId(id), undefined, JSON.stringify(id));
      assert.equal(isUsableRequestId(id), false);
    }
  });

  it('gives undefined when the request sent no id', () => {
    assert.equal(usableRequestId(undefined), undefined);
  });
});
