// A fresh random range of ids per run, so that runs never meet and nothing outside it is touched.

import type { Server } from './server-http.ts';

/** The ids one run writes. */
export interface IdPlan {
  /** The `k`-th id of the run's range (0 to 99), in the safe-integer range. */
  readonly general: (k: number) => bigint;
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
  readonly server: Server;
  /** A token made up for this run, which the server must reject. */
  readonly rejectedToken: string;
  /** A random word naming this run (in the unknown path it asks for). */
  readonly runId: string;
  readonly maxBodyBytes: number;
  /** Whether a host owns the unknown paths under the base URL, so their check is skipped. */
  readonly mounted: boolean;
  readonly ids: IdPlan;
}

/** How many ids of the general range a run uses at most. */
export const RANGE_SIZE = 100;

/** The ids of a run, all from its first, so that one number names a run. */
export function idPlan(first: bigint): IdPlan {
  // Doubles near 2^62 are 1024 apart: a server that rounds ids through one files the pair as one.
  const top = 2n ** 62n + (first % 2n ** 40n) * 4096n;
  // Past 2^53 doubles are 2 apart and a tie rounds to the multiple of 4; 2^41 up keeps clear of
  // the ids people type to try int64 (2^53 + 1 above all), which a run must not find taken.
  const past = 2n ** 53n + (first - (first % 2n)) * 2n;
  return { general: (k) => first + BigInt(k), first, top, bottom: -top, past };
}

/** From 2^40 to 2^52: exact in any JSON parser, and clear of the small ids a person might use. */
export function randomFirstId(): bigint {
  const [high = 0, low = 0] = crypto.getRandomValues(new Uint32Array(2));
  return (
    2n ** 40n +
    (((BigInt(high) << 32n) | BigInt(low)) % (2n ** 52n - 2n ** 40n - BigInt(RANGE_SIZE)))
  );
}

/** 16 hexadecimal characters: a token the server must reject, or the run's name. */
export function randomWord(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The ids a run writes, as a line for a person. */
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
