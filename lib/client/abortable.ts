/**
 * Waiting that stops when a signal fires: for a `fetch`, a token function or a body stream that
 * does not watch the signal itself, and for the pause between attempts.
 *
 * @module
 */

/**
 * Settles as `promise` does, or rejects with the signal's reason as soon as it fires.
 *
 * @param promise What is waited for.
 * @param signal Stops the wait.
 * @returns The promise's value.
 * @example
 * ```ts
 * const response = await untilAborted(fetch(request), signal);
 * ```
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The abandoned promise may still reject: nobody waits for it any more.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Resolves after `ms` milliseconds, or rejects with the signal's reason when it fires first.
 *
 * @param ms How long to wait.
 * @param signal Stops the wait.
 * @example
 * ```ts
 * await sleep(250, signal);
 * ```
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return untilAborted(waited, signal).finally(() => clearTimeout(timer));
}
