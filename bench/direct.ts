/**
 * `npm run bench:direct`: the cost of one call, in one process, no sockets (mitata).
 *
 * (a) the bare round trip: construct the `Request`, read its text, build a `Response`; no logic.
 * (b) `store.handleCreatePlant(request)`, constructing the request included.
 * (c) Hono's `app.request(request)` on the same workload, written with Hono's middleware.
 *
 * Every call sends a new id (a counter), so every call is a create, never a replay. The calls
 * are timed in rounds, each call once per round in rotated order, and the ratios (b)/(a) and
 * (c)/(b) are taken within each round: on a shared machine a call timed after another can see a
 * different machine. The npm script runs node with `--expose-gc`, so mitata collects garbage
 * before it times each call, and no call pays for the garbage of the one timed before it.
 * Prints each call's median timing and the median ratios, with min-max over the rounds.
 *
 * Flags: --rounds <n> (5)
 */

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { do_not_optimize, measure } from 'mitata';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../lib/index.ts';
import { parseBenchFlags, rotated, spread } from './_harness.ts';
import { NODE_BINARY } from './_servers.ts';
import { TOKEN } from './servers/_common.ts';
import { createHonoApp } from './servers/_hono-app.ts';

const { rounds } = parseBenchFlags('npm run bench:direct --', ['rounds']);

// The HTTP bench's Node runs the calls too: this one re-runs itself on Node 24 when it is older.
if (process.execPath !== NODE_BINARY && existsSync(NODE_BINARY)) {
  const args = [...process.execArgv, ...process.argv.slice(1)];
  process.exit(spawnSync(NODE_BINARY, args, { stdio: 'inherit' }).status ?? 1);
}
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('bench:direct: run node with --expose-gc (npm run bench:direct does)\n');
}

const URL = 'http://localhost/plants';
const AUTHORIZATION = `Bearer ${TOKEN}`;
const RESPONSE_BODY = '{"name":"Monstera","tag":"aroid"}';

let nextId = 1;
/** A new create request, as a caller builds one: fresh headers and a string body. */
function newRequest(): Request {
  return new Request(URL, {
    method: 'POST',
    headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
    body: `{"id":${nextId++},"name":"Monstera","tag":"aroid"}`,
  });
}

const store = createPlantStore({
  repository: createMemoryRepository(),
  verifier: createStaticTokenVerifier([TOKEN]),
});
const honoApp = createHonoApp();

const NAMES = {
  bare: '(a) bare Request → text() → Response',
  store: '(b) store.handleCreatePlant(request)',
  hono: '(c) hono app.request(request)',
} as const;

// Sanity: each path answers 200 with the plant before it is timed.
for (const [name, call] of [
  ['store', () => store.handleCreatePlant(newRequest())],
  ['hono', () => honoApp.request(newRequest())],
] as const) {
  const response = await call();
  const text = await response.text();
  if (response.status !== 200 || text !== RESPONSE_BODY) {
    throw new Error(`${name} answered ${response.status} ${text}`);
  }
}

/** Each call, as a function mitata times. */
const CALLS: Record<keyof typeof NAMES, () => Promise<unknown>> = {
  bare: async () => {
    const request = newRequest();
    const text = await request.text();
    do_not_optimize(text);
    return new Response(RESPONSE_BODY, {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  },
  store: async () => store.handleCreatePlant(newRequest()),
  hono: async () => honoApp.request(newRequest()),
};
const KEYS = Object.keys(NAMES) as (keyof typeof NAMES)[];

interface Timing {
  readonly avg: number;
  readonly p50: number;
}
/** Per round, each call's timing; the ratios are taken within a round. */
const timings: Record<keyof typeof NAMES, Timing>[] = [];
for (let round = 0; round < rounds; round++) {
  // Rotated, so no call always runs first or last in a round.
  const order = rotated(KEYS, round);
  const timing = {} as Record<keyof typeof NAMES, Timing>;
  for (const key of order) {
    const { avg, p50 } = await measure(CALLS[key]);
    timing[key] = { avg, p50 };
  }
  timings.push(timing);
  process.stderr.write(
    `round ${round + 1}/${rounds}: ${KEYS.map((key) => `${key} ${us(timing[key].p50)} p50`).join(', ')}\n`,
  );
}

function us(ns: number): string {
  return `${(ns / 1000).toFixed(2)} µs`;
}
const ratio = (top: keyof typeof NAMES, bottom: keyof typeof NAMES, stat: keyof Timing): string =>
  spread(
    timings.map((t) => t[top][stat] / t[bottom][stat]),
    2,
  );
/** A call's timings over the rounds, in µs. */
const micros = (key: keyof typeof NAMES, stat: keyof Timing): string =>
  spread(
    timings.map((t) => t[key][stat] / 1000),
    2,
  );

const lines = [
  '',
  `Medians of ${rounds} round(s) (min-max); each round times every call once, in rotated order.`,
  '',
  '| per call | avg µs | p50 µs |',
  '| --- | ---: | ---: |',
  ...KEYS.map((key) => `| ${NAMES[key]} | ${micros(key, 'avg')} | ${micros(key, 'p50')} |`),
  '',
  `(b)/(a) = ${ratio('store', 'bare', 'avg')} (avg), ${ratio('store', 'bare', 'p50')} (p50)`,
  `(c)/(b) = ${ratio('hono', 'store', 'avg')} (avg), ${ratio('hono', 'store', 'p50')} (p50)`,
  `Node ${process.version}; ${nextId - 1} ids created.`,
  '',
];
process.stdout.write(lines.join('\n'));
