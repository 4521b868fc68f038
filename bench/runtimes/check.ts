/**
 * The runtimes' correctness check: the harness's `checkServer` (200, 401, 400, 409, an identical
 * replay, 413, 415), then the routes (404, 405) and exact ids around 2^53 and at the int64
 * bounds, kept apart so that a framework that rounds ids, as its users write it, is said to and
 * still measured.
 *
 * @module
 */

import { checkServer } from '../_harness.ts';
import { TOKEN } from '../servers/_common.ts';

/** What a server's check found: the contract's failures, and the exact-id ones apart. */
export interface CheckResult {
  readonly failures: string[];
  readonly idFailures: string[];
}

interface Probe {
  readonly what: string;
  readonly expect: number;
  readonly path?: string;
  readonly method?: string;
  /** The body's id, as JSON text; a POST with a name. */
  readonly id?: string;
  readonly name?: string;
}

const ROUTES: readonly Probe[] = [
  { what: 'unknown path', expect: 404, path: '/nothing', id: '20', name: 'a' },
  { what: 'GET /plants', expect: 405, method: 'GET' },
];

// Ids that a double rounds together: 2^53 + 1 and 2^53, 2^63 - 2 and 2^63 - 1. A server that
// rounds them finds the second of each pair a conflict (409) instead of a new plant.
const IDS: readonly Probe[] = [
  { what: 'id 2^53 + 1', expect: 200, id: '9007199254740993', name: 'a' },
  { what: 'id 2^53 after 2^53 + 1', expect: 200, id: '9007199254740992', name: 'b' },
  { what: 'id int64 max', expect: 200, id: '9223372036854775807', name: 'max' },
  { what: 'id int64 max - 1 after max', expect: 200, id: '9223372036854775806', name: 'x' },
  { what: 'id int64 min', expect: 200, id: '-9223372036854775808', name: 'min' },
  { what: 'identical replay of 2^53 + 1', expect: 200, id: '9007199254740993', name: 'a' },
  { what: 'conflicting replay of int64 max', expect: 409, id: '9223372036854775807', name: 'y' },
  { what: 'id int64 max + 1', expect: 400, id: '9223372036854775808', name: 'a' },
];

async function runProbes(url: string, probes: readonly Probe[]): Promise<string[]> {
  const failures: string[] = [];
  for (const probe of probes) {
    try {
      const response = await fetch(`${url}${probe.path ?? '/plants'}`, {
        method: probe.method ?? 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: probe.id === undefined ? undefined : `{"id":${probe.id},"name":"${probe.name}"}`,
        signal: AbortSignal.timeout(5000),
      });
      const text = await response.text();
      if (response.status !== probe.expect) {
        failures.push(`${probe.what}: ${response.status}, expected ${probe.expect}`);
      } else if (probe.expect === 200 && JSON.parse(text).name !== probe.name) {
        failures.push(`${probe.what}: body ${text.slice(0, 120)}`);
      }
    } catch (error) {
      failures.push(`${probe.what}: ${(error as Error).message}`);
    }
  }
  return failures;
}

/** Runs the whole check on the server at `url` (a fresh process: the ids must be new to it). */
export async function checkRuntimeServer(url: string): Promise<CheckResult> {
  const failures = [...(await checkServer(url)), ...(await runProbes(url, ROUTES))];
  return { failures, idFailures: await runProbes(url, IDS) };
}
