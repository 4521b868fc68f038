/** What `plant-store --help` tells an operator: every setting, and how to run it in production. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText } from '../../lib/cli/help.ts';
import { SETTINGS } from '../../lib/cli/settings-table.ts';

describe('helpText', () => {
  it('lists every setting the standalone server reads', () => {
    const listed = [...helpText().matchAll(/^ {2}([A-Z_]+) /gm)].map((match) => match[1]);
    assert.deepEqual([...listed].sort(), Object.keys(SETTINGS).sort());
  });

  it('names the conform command and where its options are when asked for help', () => {
    assert.match(
      helpText(),
      /^ {7}plant-store conform <base-url> --token <token> \[options\]\n {11}checks any running server against the Plant Store contract \(plant-store conform --help\)$/m,
    );
  });

  it('gives the production command that receives signals, and says a timeout of 0 is refused', () => {
    // Under npx, npm exits on SIGTERM and the server keeps listening.
    assert.match(helpText(), /In production: node node_modules\/plant-store\/bin\/plant-store\.js/);
    assert.match(helpText(), /Every timeout is at least 1 ms/);
    assert.match(helpText(), /printed on stderr/);
  });
});
