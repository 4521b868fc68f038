/**
 * How every hook a host hands in is called (`onError`, `onRequestStart`, `onRequestEnd`, and any
 * later one): a hook is the host's code running inside a request a client chose, so a throw or a
 * rejection from it is reported once and never reaches the host's process.
 *
 * @module
 */

/**
 * Calls `hook` with `value`; a throw, or a promise it returns that rejects, goes to `onFailure`
 * (by default stderr, for when the hook that failed is `onError` itself).
 *
 * @param hook The host's hook.
 * @param value What it is called with.
 * @param onFailure Hears the hook's failure; it must not throw.
 */
export function callHook<T>(
  hook: (value: T) => unknown,
  value: T,
  onFailure: (error: unknown) => void = toStderr,
): void {
  try {
    const pending: unknown = hook(value);
    // An async hook type-checks too: its rejection must not become an unhandled one.
    if (pending instanceof Promise) pending.catch(onFailure);
  } catch (error) {
    onFailure(error);
  }
}

/**
 * `hook`, made safe to call from anywhere: its failures are reported to `onError` through
 * `callHook` (and `onError`'s own failures to stderr).
 *
 * @param hook The host's hook.
 * @param onError Where the hook's failures go.
 * @returns A function that calls `hook` and never throws or rejects.
 */
export function guardHook<T>(
  hook: (value: T) => unknown,
  onError: (error: unknown) => void,
): (value: T) => void {
  const failed = (error: unknown): void => callHook(onError, error);
  return (value) => callHook(hook, value, failed);
}

/** The last place a failure can go: stderr, never a throw. */
function toStderr(error: unknown): void {
  try {
    console.error('plant-store: onError failed:', error);
  } catch {
    // Nowhere is left to report to.
  }
}
