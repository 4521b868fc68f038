/** What `plant-store --help` tells an operator: every setting, and how to run it in production. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText } from '../../lib/cli/help.ts';
import { SETTINGS } from '../../lib/cli/settings-table.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from '../../lib/index.ts';
import { DEFAULT_JWT_ALGORITHMS } from '../../lib/jwt.ts';

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

  it("prints the store's defaults and the JWT allowlist createJwtVerifier applies when unset", () => {
    assert.match(
      helpText(),
      new RegExp(
        `PLANT_STORE_MAX_BODY_BYTES +largest body accepted \\(default: ${DEFAULT_MAX_BODY_BYTES}\\)`,
      ),
    );
    assert.match(
      helpText(),
      new RegExp(
        `PLANT_STORE_TIMEOUT_MS +deadline of one create \\(default: ${DEFAULT_TIMEOUT_MS}\\)`,
      ),
    );
    // The table cannot import it: plant-store/jwt loads jose, which the server loads on demand.
    assert.match(
      helpText(),
      new RegExp(
        `PLANT_STORE_JWT_ALGORITHMS +JWT mode: allowlist \\(default: ${DEFAULT_JWT_ALGORITHMS.join(',')}\\)`,
      ),
    );
  });
});
