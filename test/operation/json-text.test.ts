import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonString } from '../../lib/operation/json-text.ts';

describe('jsonString', () => {
  it('gives the very text JSON.stringify gives when a string needs escapes or none', () => {
    // The edges of its shortcut: quote, backslash, control characters, DEL, the line
    // separators JSON allows raw, and lone surrogates, which JSON.stringify escapes.
    for (const text of ['', 'Fern', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800']) {
      assert.equal(jsonString(text), JSON.stringify(text), JSON.stringify(text));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (text) => {
        assert.equal(jsonString(text), JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
  });
});
