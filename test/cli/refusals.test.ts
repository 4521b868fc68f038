/**
 * The standalone server's account of connections refused at the cap, on its own: a flood of
 * refusals makes one log line and then one summary per window, and `/readyz`'s saturation
 * lasts as long as the refusals.
 */

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createLogger, type LogOutput } from '../../lib/cli/logger.ts';
import { createRefusals, REFUSAL_WINDOW_MS } from '../../lib/cli/refusals.ts';

/** A JSON log whose lines are kept, written at once. */
function recordedLog() {
  const writes: string[] = [];
  const output: LogOutput = { isTTY: false, write: (text) => writes.push(text) };
  const log = createLogger({ format: 'json', level: 'info' }, output);
  const lines = (): Record<string, unknown>[] => {
    log.flush();
    return writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return { log, lines };
}

describe('createRefusals', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval', 'setTimeout', 'Date'], now: 0 }));
  afterEach(() => mock.timers.reset());

  it('logs the first refusal of a burst at once, then one summary per window, never a line each', () => {
    const { log, lines } = recordedLog();
    const refusals = createRefusals(log, () => 20);
    for (let i = 0; i < 1000; i++) refusals.refused();
    assert.deepEqual(
      lines().map(({ level, msg, maxConnections }) => ({ level, msg, maxConnections })),
      [
        {
          level: 'warn',
          msg: 'refusing new connections: every open connection is busy',
          maxConnections: 20,
        },
      ],
    );
    mock.timers.tick(REFUSAL_WINDOW_MS);
    const summary = lines()[1];
    assert.equal(
      summary?.msg,
      'refused 999 more new connection(s) in the last 10 s: every open connection busy',
    );
    assert.equal(summary?.refusedTotal, 1000);
    // A quiet window ends the burst; the next refusal is said at once again.
    mock.timers.tick(2 * REFUSAL_WINDOW_MS);
    assert.equal(lines().length, 2);
    refusals.refused();
    assert.equal(lines().length, 3);
    assert.equal(lines()[2]?.msg, 'refusing new connections: every open connection is busy');
  });

  it('reports the saturation while connections are being refused, and not after', () => {
    const { log } = recordedLog();
    const refusals = createRefusals(log, () => 20);
    assert.equal(refusals.saturation(), undefined);
    refusals.refused();
    refusals.refused();
    mock.timers.tick(1500);
    assert.deepEqual(refusals.saturation(), {
      connections: { max: 20, refused: 2, lastRefusalAgeMs: 1500 },
    });
    mock.timers.tick(REFUSAL_WINDOW_MS - 1500);
    assert.equal(refusals.saturation(), undefined);
  });
});
