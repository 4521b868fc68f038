/**
 * How the standalone server hears SIGINT and SIGTERM. A terminal's Ctrl-C reaches the server
 * twice when it runs under npm (the terminal signals the whole process group, and npm passes
 * the signal on), so a second signal within about a second of the first counts as the same one;
 * a signal after that stops at once.
 *
 * @module
 */

/** How long a graceful stop lets in-flight requests finish. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

/** How long after a first signal another one counts as the same. */
export const REPEAT_GRACE_MS = 1_000;

/**
 * Calls `graceful` on the first SIGINT or SIGTERM and `force` on one that comes later than
 * `REPEAT_GRACE_MS` after it.
 */
export function onStopSignals(
  graceful: (signal: NodeJS.Signals) => void,
  force: (signal: NodeJS.Signals) => void,
): void {
  let first: number | undefined;
  const heard = (signal: NodeJS.Signals): void => {
    const now = performance.now();
    if (first === undefined) {
      first = now;
      graceful(signal);
    } else if (now - first >= REPEAT_GRACE_MS) {
      force(signal);
    }
  };
  process.on('SIGINT', heard);
  process.on('SIGTERM', heard);
}
