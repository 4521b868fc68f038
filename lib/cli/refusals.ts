/**
 * Connections refused at the cap: the first of a burst logged at once, the rest summarised once
 * per window so that a flood does not become a log flood, and the saturation `/readyz` reports
 * without changing its status, so that a flood does not pull every instance out of a load
 * balancer at once.
 *
 * @module
 */

import type { Logger } from './logger.ts';

/** How long one summary line covers, and how long after the last refusal `/readyz` reports it. */
export const REFUSAL_WINDOW_MS = 10_000;

export interface Refusals {
  refused(): void;
  /** `undefined` while no connection has been refused for a window. */
  saturation(): Readonly<Record<string, unknown>> | undefined;
}

/** `maxConnections` is read once the server listens. */
export function createRefusals(log: Logger, maxConnections: () => number): Refusals {
  let total = 0;
  let lastAt: number | undefined;
  let unlogged = 0;
  let window: NodeJS.Timeout | undefined;
  const summarise = (): void => {
    if (unlogged === 0) {
      // A quiet window ends the burst: the next refusal is logged at once again.
      clearInterval(window);
      window = undefined;
      return;
    }
    log.warn(
      `refused ${unlogged} more new connection(s) in the last ${REFUSAL_WINDOW_MS / 1000} s: every open connection busy`,
      { maxConnections: maxConnections(), refusedTotal: total },
    );
    unlogged = 0;
  };
  return {
    refused() {
      total++;
      lastAt = Date.now();
      if (window !== undefined) {
        unlogged++;
        return;
      }
      log.warn('refusing new connections: every open connection is busy', {
        maxConnections: maxConnections(),
      });
      window = setInterval(summarise, REFUSAL_WINDOW_MS);
      window.unref();
    },
    saturation() {
      if (lastAt === undefined) return undefined;
      const ageMs = Date.now() - lastAt;
      if (ageMs >= REFUSAL_WINDOW_MS) return undefined;
      return {
        connections: { max: maxConnections(), refused: total, lastRefusalAgeMs: ageMs },
      };
    },
  };
}
