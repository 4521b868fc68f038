/**
 * How the standalone server hears SIGINT and SIGTERM. Under npm a terminal's Ctrl-C arrives
 * twice (the terminal signals the process group and npm passes it on), so a second signal
 * within `REPEAT_GRACE_MS` counts as the same one; a later one stops at once.
 *
 * @module
 */

export const REPEAT_GRACE_MS = 1_000;

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
