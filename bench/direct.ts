/**
 * `npm run bench:direct`: the cost of one call, in one process, no sockets (mitata).
 *
 * (a) the bare round trip: construct the `Request`, read its text, build a `Response`; no logic.
 * (b) `store.handleCreatePlant(request)`, constructing the request included.
 * (c) Hono's `app.request(request)` on the same workload, written with Hono's middleware.
 * (d) for reference: Hono's `app.request` mounting `store.handleCreatePlant(c.req.raw)`.
 * (e) for reference: (b) with a repository that keeps nothing (every create is new), so the
 *     handler's own cost shows apart from the memory repository's: a store that keeps every
 *     plant in the JS heap makes the garbage collector promote, sweep and mark more as the heap
 *     grows, which (a) never pays.
 *
 * Every call sends a new id (a counter), so every call is a create, never a replay. The calls
 * are timed in rounds, each call once per round in rotated order, and the ratios, (b)/(a) and
 * (c)/(b) (the issue's) and (e)/(a), are taken within each round: on a shared machine a call
 * timed after another can see a different machine, and single passes gave (b)/(a) from 0.74 to
 * 1.75. The npm script runs node with `--expose-gc`, so mitata collects garbage before it times
 * each call: a rotation moves a call's position but never its predecessor, and without it the
 * call timed after one that keeps plants always paid for that call's marking and sweeping.
 * Prints each call's median timing and the median ratio, with min-max over the rounds.
 *
 * Flags: --rounds <n> (5)
 */

import { parseArgs } from 'node:util';
import { Hono } from 'hono';
import { do_not_optimize, measure } from 'mitata';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../lib/index.ts';
import { integerFlag, rotated, spread } from './_harness.ts';
import { TOKEN } from './servers/_common.ts';
import { createHonoApp } from './servers/_hono-app.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('bench:direct: run node with --expose-gc (npm run bench:direct does)\n');
}
const rounds = integerFlag('rounds', values.rounds);

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
const CREATED = Object.freeze({ created: true });
const storeKeepingNothing = createPlantStore({
  repository: { create: () => CREATED },
  verifier: createStaticTokenVerifier([TOKEN]),
});
const honoApp = createHonoApp();
const honoMount = new Hono();
honoMount.post('/plants', (c) => store.handleCreatePlant(c.req.raw));

const NAMES = {
  bare: '(a) bare Request → text() → Response',
  store: '(b) store.handleCreatePlant(request)',
  hono: '(c) hono app.request(request)',
  honoMount: '(d) hono app.request → handleCreatePlant',
  keepNothing: '(e) (b) with a repository that keeps nothing',
} as const;

// Sanity: each path answers 200 with the plant before it is timed.
for (const [name, call] of [
  ['store', () => store.handleCreatePlant(newRequest())],
  ['hono', () => honoApp.request(newRequest())],
  ['honoMount', () => honoMount.request(newRequest())],
  ['keepNothing', () => storeKeepingNothing.handleCreatePlant(newRequest())],
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
  honoMount: async () => honoMount.request(newRequest()),
  keepNothing: async () => storeKeepingNothing.handleCreatePlant(newRequest()),
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
  `(b)/(a) = ${ratio('store', 'bare', 'avg')} (avg), ${ratio('store', 'bare', 'p50')} (p50); target ≤ 1.15`,
  `(c)/(b) = ${ratio('hono', 'store', 'avg')} (avg), ${ratio('hono', 'store', 'p50')} (p50); target ≥ 2`,
  `(e)/(a) = ${ratio('keepNothing', 'bare', 'avg')} (avg), ${ratio('keepNothing', 'bare', 'p50')} (p50); the handler, storage aside`,
  `Node ${process.version}; ${nextId - 1} ids created.`,
  '',
];
process.stdout.write(lines.join('\n'));
