/**
 * What every part of the Node adapter shares: the listener's settings, the checks of numeric
 * options, and how an error reaches the host's `onError`.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';
import { callHook } from '../guards/call-hook.ts';

/** The default of `maxDrainBytes`: 1 MiB. */
export const DEFAULT_MAX_DRAIN_BYTES = 1_048_576;
/** The default of `drainTimeout`: 2 s. */
export const DEFAULT_DRAIN_TIMEOUT = 2000;

/** The listener's settings, as `toNodeListener` resolved them. */
export interface ListenerConfig {
  /** Hears about handler errors and failed response bodies. */
  readonly onError: (error: unknown) => void;
  /** The most bytes of an unread request body drained after the response. */
  readonly maxDrainBytes: number;
  /** The longest time spent draining an unread request body, in milliseconds. */
  readonly drainTimeout: number;
}

/**
 * An integer option of at least `min`, or its default when unset; anything else is a
 * `TypeError`. Timeouts take `min` 1: to node, `0` means "never", which turns a protection off.
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

/** The default `onError`: the error on stderr. */
export function defaultOnError(error: unknown): void {
  console.error(error);
}

/** Does nothing: for promises whose failure changes nothing. */
export function noop(): void {}

/** What is left when answering failed in a way nothing else caught: report, cut the connection. */
export function lastResort(config: ListenerConfig, res: ServerResponse, error: unknown): void {
  report(config.onError, error);
  res.destroy();
}
