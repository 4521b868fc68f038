/**
 * `npm run bench:direct`: the cost of one call, in one process, no sockets (mitata).
 *
 * (a) the bare round trip: construct the `Request`, read its text, build a `Response`; no logic.
 * (b) `store.handleCreatePlant(request)`, constructing the request included.
 * (c) Hono's `app.request(request)` on the same workload, written with Hono's middleware.
 * (d) for reference: Hono's `app.request` mounting `store.handleCreatePlant(c.req.raw)`.
 *
 * Every call sends a new id (a counter), so every call is a create, never a replay. Prints
 * mitata's table, then the ratios the targets use: (b)/(a) and (c)/(b).
 */

import { Hono } from 'hono';
import { bench, do_not_optimize, run } from 'mitata';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../lib/index.ts';
import { TOKEN } from './servers/_common.ts';
import { createHonoApp } from './servers/_hono-app.ts';

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
const honoMount = new Hono();
honoMount.post('/plants', (c) => store.handleCreatePlant(c.req.raw));

const NAMES = {
  bare: '(a) bare Request → text() → Response',
  store: '(b) store.handleCreatePlant(request)',
  hono: '(c) hono app.request(request)',
  honoMount: '(d) hono app.request → handleCreatePlant',
} as const;

// Sanity: each path answers 200 with the plant before it is timed.
for (const [name, call] of [
  ['store', () => store.handleCreatePlant(newRequest())],
  ['hono', () => honoApp.request(newRequest())],
  ['honoMount', () => honoMount.request(newRequest())],
] as const) {
  const response = await call();
  const text = await response.text();
  if (response.status !== 200 || text !== RESPONSE_BODY) {
    throw new Error(`${name} answered ${response.status} ${text}`);
  }
}

bench(NAMES.bare, async () => {
  const request = newRequest();
  const text = await request.text();
  do_not_optimize(text);
  return new Response(RESPONSE_BODY, {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
});
bench(NAMES.store, async () => store.handleCreatePlant(newRequest()));
bench(NAMES.hono, async () => honoApp.request(newRequest()));
bench(NAMES.honoMount, async () => honoMount.request(newRequest()));

const { benchmarks } = await run();
const stat = (name: string, key: 'avg' | 'p50'): number => {
  const stats = benchmarks.find((b) => b.alias === name)?.runs[0]?.stats;
  if (stats === undefined) throw new Error(`no result for ${name}`);
  return stats[key];
};
const us = (ns: number): string => `${(ns / 1000).toFixed(2)} µs`;
const lines = [
  '',
  '| per call | avg | p50 |',
  '| --- | ---: | ---: |',
  ...Object.values(NAMES).map(
    (name) => `| ${name} | ${us(stat(name, 'avg'))} | ${us(stat(name, 'p50'))} |`,
  ),
  '',
  `(b)/(a) = ${(stat(NAMES.store, 'avg') / stat(NAMES.bare, 'avg')).toFixed(2)} (avg), ` +
    `${(stat(NAMES.store, 'p50') / stat(NAMES.bare, 'p50')).toFixed(2)} (p50); target ≤ 1.15`,
  `(c)/(b) = ${(stat(NAMES.hono, 'avg') / stat(NAMES.store, 'avg')).toFixed(2)} (avg), ` +
    `${(stat(NAMES.hono, 'p50') / stat(NAMES.store, 'p50')).toFixed(2)} (p50); target ≥ 2`,
  `Node ${process.version}; ${nextId - 1} ids created.`,
  '',
];
process.stdout.write(lines.join('\n'));
