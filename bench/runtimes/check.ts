/**
 * The runtimes' correctness check: the harness's `checkServer` (200, 401, 400, 409, an identical
 * replay, 413, 415), then the routes (404, 405) and exact ids around 2^53 and at the int64
 * bounds, kept apart so that a framework that rounds ids, as its users write it, is said to and
 * still measured.
 *
 * @module
 */

import { checkServer, type Probe, post, runProbes } from '../_harness.ts';
import { TOKEN } from '../servers/_common.ts';

/** What a server's check found: the contract's failures, and the exact-id ones apart. */
export interface CheckResult {
  readonly failures: string[];
  readonly idFailures: string[];
}

const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** A create of `name` under `id` (JSON text), expected to answer `expect` (with the name, if 200). */
function create(what: string, expect: number, id: string, name: string): Probe {
  return {
    what,
    expect,
    init: post(HEADERS, `{"id":${id},"name":"${name}"}`),
    body: expect === 200 ? { name } : undefined,
  };
}

// Built per check: each request's 5 s timeout starts when its probe is made.
const routes = (): Probe[] => [
  { ...create('unknown path', 404, '20', 'a'), path: '/nothing' },
  {
    what: 'GET /plants',
    expect: 405,
    init: { headers: HEADERS, signal: AbortSignal.timeout(5000) },
  },
];

// Ids that a double rounds together: 2^53 + 1 and 2^53, 2^63 - 2 and 2^63 - 1. A server that
// rounds them finds the second of each pair a conflict (409) instead of a new plant.
const ids = (): Probe[] => [
  create('id 2^53 + 1', 200, '9007199254740993', 'a'),
  create('id 2^53 after 2^53 + 1', 200, '9007199254740992', 'b'),
  create('id int64 max', 200, '9223372036854775807', 'max'),
  create('id int64 max - 1 after max', 200, '9223372036854775806', 'x'),
  create('id int64 min', 200, '-9223372036854775808', 'min'),
  create('identical replay of 2^53 + 1', 200, '9007199254740993', 'a'),
  create('conflicting replay of int64 max', 409, '9223372036854775807', 'y'),
  create('id int64 max + 1', 400, '9223372036854775808', 'a'),
];

/** Runs the whole check on the server at `url` (a fresh process: the ids must be new to it). */
export async function checkRuntimeServer(url: string): Promise<CheckResult> {
  const failures = [...(await checkServer(url)), ...(await runProbes(url, routes()))];
  return { failures, idFailures: await runProbes(url, ids()) };
}
