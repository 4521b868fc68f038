import type { ServerResponse } from 'node:http';
import { callHook } from '../guards/call-hook.ts';

export const DEFAULT_MAX_DRAIN_BYTES = 1_048_576;
export const DEFAULT_DRAIN_TIMEOUT = 2000;

/** The listener's settings, as `toNodeListener` resolved them. */
export interface ListenerConfig {
  readonly onError: (error: unknown) => void;
  readonly maxDrainBytes: number;
  readonly drainTimeout: number;
}

/**
 * An integer option of at least `min`, or its default when unset. Timeouts take `min` 1: to node,
 * `0` means "never", which turns a protection off.
 */
export function count(
  value: number | undefined,
  fallback: number,
  name: string,
  min: 0 | 1 = 0,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`${name} must be a ${min === 0 ? 'non-negative' : 'positive'} integer`);
  }
  return value;
}

/** Tells `onError` about an error; an `onError` that throws or rejects is reported to stderr. */
export function report(onError: (error: unknown) => void, error: unknown): void {
  callHook(onError, error);
}

export function defaultOnError(error: unknown): void {
  console.error(error);
}

export function noop(): void {}

/** For a failure nothing else caught: report it and cut the connection. */
export function lastResort(config: ListenerConfig, res: ServerResponse, error: unknown): void {
  report(config.onError, error);
  res.destroy();
}
