import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOptionNames, nearestName } from '../../lib/guards/check-option-names.ts';

describe('checkOptionNames', () => {
  it('passes known names, and no options at all', () => {
    checkOptionNames('f', { port: 1 }, ['port', 'host']);
    checkOptionNames('f', undefined, ['port']);
    checkOptionNames('f', null, ['port']);
  });

  it('refuses a misspelled name with the nearest known one', () => {
    assert.throws(() => checkOptionNames('serve', { prot: 38211 }, ['port', 'host', 'onError']), {
      name: 'TypeError',
      message: 'serve: unknown option "prot"; did you mean "port"? (known: port, host, onError)',
    });
  });

  it('names the nearest name whatever its case', () => {
    assert.equal(nearestName('MAXBODYBYTES', ['timeoutMs', 'maxBodyBytes']), 'maxBodyBytes');
  });
});
