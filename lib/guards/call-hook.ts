// Every hook a host hands in runs inside a request a client chose: a throw or a rejection from it
// is reported once and never reaches the host's process.

/** Calls `hook`; a throw or rejection goes to `onFailure`, by default stderr (for `onError`). */
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

/** `hook`, safe to call anywhere: its failures go to `onError`, and `onError`'s to stderr. */
export function guardHook<T>(
  hook: (value: T) => unknown,
  onError: (error: unknown) => void,
): (value: T) => void {
  const failed = (error: unknown): void => callHook(onError, error);
  return (value) => callHook(hook, value, failed);
}

function toStderr(error: unknown): void {
  try {
    console.error('plant-store: onError failed:', error);
  } catch {
    // Nowhere is left to report to.
  }
}
