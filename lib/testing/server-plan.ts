/**
 * What one run of `checkServer` writes and with what: a fresh random range of ids (so runs
 * never meet, and nothing outside the range is touched), pairs derived from it near ±2^62 and
 * past 2^53, the ends of the int64 range, the token the server accepts and one it must reject.
 *
 * @module
 */

import type { Server } from './server-http.ts';

/** The ids one run writes. */
export interface IdPlan {
  /** The `k`-th id of the run's range (0 to 99), in the safe-integer range. */
  readonly general: (k: number) => bigint;
  /** The first of the range. */
  readonly first: bigint;
  /** A multiple of 4096 near the top of the int64 range; the run writes it and the next id. */
  readonly top: bigint;
  /** A negative multiple of 4096 near the bottom; the run writes it and the one below it. */
  readonly bottom: bigint;
  /**
   * A multiple of 4 from 2^53 + 2^41 to 2^54, whose successor a double rounds down to it; the
   * run writes both.
   */
  readonly past: bigint;
}

/** One run: the server, the ids, the limits. */
export interface ServerPlan {
  /** The server and the token it accepts. */
  readonly server: Server;
  /** A token made up for this run, which the server must reject. */
  readonly rejectedToken: string;
  /** A random word naming this run (in the unknown path it asks for). */
  readonly runId: string;
  /** The server's body limit in bytes. */
  readonly maxBodyBytes: number;
  /** Whether a host owns the unknown paths under the base URL, so their check is skipped. */
  readonly mounted: boolean;
  /** The ids the run writes. */
  readonly ids: IdPlan;
}

/** How many ids of the general range a run uses at most. */
export const RANGE_SIZE = 100;

/**
 * The ids of a run from its first id; the top and bottom pairs follow from it, so that a run is
 * named by one number.
 *
 * @param first The first id of the range, from 1 to 2^52.
 * @returns The plan.
 */
export function idPlan(first: bigint): IdPlan {
  // Doubles near 2^62 are 1024 apart: a server that rounds ids through one files the pair as one.
  const top = 2n ** 62n + (first % 2n ** 40n) * 4096n;
  // Past 2^53 doubles are 2 apart and a tie rounds to the multiple of 4; 2^41 up keeps clear of
  // the ids people type to try int64 (2^53 + 1 above all), which a run must not find taken.
  const past = 2n ** 53n + (first - (first % 2n)) * 2n;
  return { general: (k) => first + BigInt(k), first, top, bottom: -top, past };
}

/**
 * A random first id for a run: from 2^40 to 2^52 (exact in any JSON parser), so that two runs
 * meet with a chance of about one in 10^13 and never touch small ids a person might use.
 *
 * @returns The id.
 */
export function randomFirstId(): bigint {
  const [high = 0, low = 0] = crypto.getRandomValues(new Uint32Array(2));
  return (
    2n ** 40n +
    (((BigInt(high) << 32n) | BigInt(low)) % (2n ** 52n - 2n ** 40n - BigInt(RANGE_SIZE)))
  );
}

/**
 * A random token-shaped word, for the token the server must reject and the run's name.
 *
 * @returns 16 lowercase hexadecimal characters.
 */
export function randomWord(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The ids a run writes, as a line for a person: the range, the pairs and the fixed ids.
 *
 * @param ids The plan.
 * @returns The line.
 */
export function describeIds(ids: IdPlan): string {
  const pairs = [ids.top, ids.top + 1n, ids.bottom, ids.bottom - 1n, ids.past, ids.past + 1n];
  return `ids ${ids.first}..${ids.first + BigInt(RANGE_SIZE - 1)}, ${pairs.join(', ')}; and, with fixed names so that a rerun replays them, ${FIXED_IDS.join(', ')}`;
}

/** The fixed ids of the int64 checks: the ends of the range, which no run can choose. */
export const FIXED_IDS: readonly bigint[] = [
  9223372036854775807n,
  9223372036854775806n,
  -9223372036854775808n,
  -9223372036854775807n,
];
