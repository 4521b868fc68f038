/**
 * `npm run bench:direct`: the cost of one call, in one process, no sockets (mitata): (a) a bare
 * `Request` → `text()` → `Response` round trip, (b) `store.handleCreatePlant(request)`, (c)
 * Hono's `app.request(request)` on the same workload. Every call creates a plant. Each round
 * times every call once, in rotated order, and the ratios are taken within a round, since a
 * shared machine can change between two timings. The npm script runs node with `--expose-gc`,
 * so mitata collects garbage before each timing and no call pays for another's.
 *
 * @module
 */

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { do_not_optimize, measure } from 'mitata';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../lib/index.ts';
import { log, markdownTable, parseBenchFlags, rotated, spread } from './_harness.ts';
import { NODE_BINARY } from './_servers.ts';
import { TOKEN } from './servers/_common.ts';
import { createHonoApp } from './servers/_hono-app.ts';

const { rounds } = parseBenchFlags('npm run bench:direct --', ['rounds']);

// The calls run on the HTTP bench's Node: re-run on Node 24 when this one is older.
if (process.execPath !== NODE_BINARY && existsSync(NODE_BINARY)) {
  const args = [...process.execArgv, ...process.argv.slice(1)];
  process.exit(spawnSync(NODE_BINARY, args, { stdio: 'inherit' }).status ?? 1);
}
if (typeof globalThis.gc !== 'function') {
  log('bench:direct: run node with --expose-gc (npm run bench:direct does)');
}

const RESPONSE_BODY = '{"name":"Monstera","tag":"aroid"}';

let nextId = 1;
/** A new create request, as a caller builds one: fresh headers and a string body. */
function newRequest(): Request {
  return new Request('http://localhost/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
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
type Call = keyof typeof NAMES;
const KEYS = Object.keys(NAMES) as Call[];

const CALLS: Record<Call, () => Promise<Response>> = {
  bare: async () => {
    do_not_optimize(await newRequest().text());
    return new Response(RESPONSE_BODY, { headers: { 'content-type': 'application/json' } });
  },
  store: async () => store.handleCreatePlant(newRequest()),
  hono: async () => honoApp.request(newRequest()),
};

// Each call must answer 200 with the plant before it is timed.
for (const key of KEYS) {
  const response = await CALLS[key]();
  const text = await response.text();
  if (response.status !== 200 || text !== RESPONSE_BODY) {
    throw new Error(`${key} answered ${response.status} ${text}`);
  }
}

/** Per round, each call's mean and median time in ns. */
const timings: Record<Call, { avg: number; p50: number }>[] = [];
for (let round = 0; round < rounds; round++) {
  const timing = {} as (typeof timings)[number];
  for (const key of rotated(KEYS, round)) {
    const { avg, p50 } = await measure(CALLS[key]);
    timing[key] = { avg, p50 };
  }
  timings.push(timing);
  const p50s = KEYS.map((key) => `${key} ${(timing[key].p50 / 1000).toFixed(2)} µs p50`);
  log(`round ${round + 1}/${rounds}: ${p50s.join(', ')}`);
}

type Stat = 'avg' | 'p50';
/** A figure over the rounds: its median, then (min-max). */
const overRounds = (figure: (timing: (typeof timings)[number]) => number): string =>
  spread(timings.map(figure), 2);
const over = (a: Call, b: Call, stat: Stat): string => overRounds((t) => t[a][stat] / t[b][stat]);
const micros = (key: Call, stat: Stat): string => overRounds((t) => t[key][stat] / 1000);

const lines = [
  '',
  `Medians of ${rounds} round(s) (min-max); each round times every call once, in rotated order.`,
  '',
  ...markdownTable(
    ['per call', 'avg µs', 'p50 µs'],
    KEYS.map((key) => [NAMES[key], micros(key, 'avg'), micros(key, 'p50')]),
    1,
  ),
  '',
  `(b)/(a) = ${over('store', 'bare', 'avg')} (avg), ${over('store', 'bare', 'p50')} (p50)`,
  `(c)/(b) = ${over('hono', 'store', 'avg')} (avg), ${over('hono', 'store', 'p50')} (p50)`,
  `Node ${process.version}; ${nextId - 1} ids created.`,
  '',
];
process.stdout.write(lines.join('\n'));
