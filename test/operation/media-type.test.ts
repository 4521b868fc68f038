import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJsonUtf8 } from '../../lib/operation/media-type.ts';

describe('isJsonUtf8', () => {
  it('refuses when any charset is not utf-8, a later or quoted one included', () => {
    for (const contentType of [
      'application/json; charset=utf-8; charset=latin1',
      'application/json; charset="latin1"; charset=utf-8',
      'application/json; charset=""',
      'application/json; charset="utf-8',
    ]) {
      assert.equal(isJsonUtf8(contentType), false, contentType);
    }
  });

  it('accepts when a charset is utf-8 in any case, quoted or not, beside other parameters', () => {
    for (const contentType of [
      'application/json; CHARSET="UTF-8"',
      'application/json; profile=plant; charset=Utf-8',
      'application/json; charset=utf-8; charset="UTF-8"',
    ]) {
      assert.equal(isJsonUtf8(contentType), true, contentType);
    }
  });
});
