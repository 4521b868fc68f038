import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOptionNames } from '../../lib/guards/check-option-names.ts';

describe('checkOptionNames', () => {
  it('passes known names, and no options at all', () => {
    checkOptionNames('f', { port: 1 }, ['port', 'host']);
    checkOptionNames('f', undefined, ['port']);
    checkOptionNames('f', null, ['port']);
  });

  it('refuses a misspelled name, naming the known ones', () => {
    assert.throws(() => checkOptionNames('serve', { prot: 38211 }, ['port', 'host', 'onError']), {
      name: 'TypeError',
      message: 'serve: unknown option "prot" (known: port, host, onError)',
    });
  });
});
