/**
 * `bun-gc.ts`: what each Bun server allocates and collects per request under wrk load, from
 * JavaScriptCore's own GC log (`BUN_JSC_logGC=1`): collections per 1,000 requests (eden and
 * full), bytes allocated per request (the sum of "bytes allocated this cycle" that started each
 * collection), and the main thread's GC time per request. The question it answers: does a
 * server make more garbage per request than the bare handler, and so collect more often?
 *
 * Each server of `bench/runtimes/catalog.ts` named by `--servers` starts as `npm run
 * bench:runtimes` starts it (`startRuntimeServer`, pinned to the server core), is warmed up by
 * wrk, then measured for `--duration` seconds; only the collections logged during the measured
 * run count. Servers run one after another, `--rounds` times, rotated.
 *
 * Flags: --servers a,b (bun-bare,bun-elysia,bun-plant-store) --duration <s> (10) --warmup <s> (5)
 *        --rounds <n> (2) --dist <dir> (./dist)
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { integerFlag, rotated, runWrk, stopServer } from '../_harness.ts';
import { serversNamed } from '../runtimes/catalog.ts';
import { DEFAULT_DIST, RUNTIME_BINARY, startRuntimeServer } from '../runtimes/launch.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'bun-bare,bun-elysia,bun-plant-store' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    dist: { type: 'string', default: DEFAULT_DIST },
  },
});
const servers = serversNamed(values.servers);
const seconds = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);
const rounds = integerFlag('rounds', values.rounds);
const dist = resolve(values.dist);

/** What the GC log says of one stretch of load. */
interface Collections {
  readonly eden: number;
  readonly full: number;
  readonly allocatedBytes: number;
  readonly pauseMs: number;
}

/** Reads the collections out of a stretch of JavaScriptCore's GC log. */
function collectionsIn(log: string): Collections {
  let eden = 0;
  let full = 0;
  let allocatedBytes = 0;
  let pauseMs = 0;
  for (const match of log.matchAll(/bytes allocated this cycle: (\d+)/g)) {
    allocatedBytes += Number(match[1]);
  }
  for (const match of log.matchAll(/=> (Eden|Full)Collection/g)) {
    if (match[1] === 'Eden') eden++;
    else full++;
  }
  // Each collection's own line ends with its total pause: "p=<ms>ms (max …)".
  for (const match of log.matchAll(/ p=([\d.]+)ms \(max/g)) pauseMs += Number(match[1]);
  return { eden, full, allocatedBytes, pauseMs };
}

/** Serves one server, loads it, and reads its GC log for the measured run only. */
async function measure(name: string, round: number) {
  const [server] = serversNamed(name);
  if (server === undefined || server.runtime !== 'bun') throw new TypeError(`${name}: not Bun`);
  const running = await startRuntimeServer(
    { ...server, env: { ...server.env, BUN_JSC_logGC: '1' } },
    dist,
  );
  // The harness keeps only the start of stderr; the GC log of the measured run is read here.
  let log = '';
  running.child.stderr?.on('data', (chunk: string) => {
    log += chunk;
  });
  try {
    const { url } = running;
    const idOffset = 1e12 + round * 1e11;
    if (warmup > 0) {
      await runWrk({ url, seconds: warmup, connections: 50, threads: 1, idOffset });
    }
    const from = log.length;
    const wrk = await runWrk({
      url,
      seconds,
      connections: 50,
      threads: 1,
      idOffset: idOffset + 5e10,
    });
    return { wrk, collections: collectionsIn(log.slice(from)) };
  } finally {
    await stopServer(running);
  }
}

const lines = [
  `Bun ${RUNTIME_BINARY.bun}; ${warmup} s warm-up, ${seconds} s measured, 50 connections.`,
  '',
  '| round | server | req/s | eden GCs per 1,000 requests | full GCs per 1,000 | bytes allocated per request | GC pause µs per request |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: |',
];
const names = servers.map((server) => server.name);
for (let round = 0; round < rounds; round++) {
  for (const name of rotated(names, round)) {
    const { wrk, collections } = await measure(name, round);
    const perThousand = 1000 / wrk.requests;
    const line =
      `| ${round + 1} | \`${name}\` | ${wrk.requestsPerSecond.toFixed(0)} | ` +
      `${(collections.eden * perThousand).toFixed(2)} | ${(collections.full * perThousand).toFixed(3)} | ` +
      `${(collections.allocatedBytes / wrk.requests).toFixed(0)} | ` +
      `${((collections.pauseMs * 1000) / wrk.requests).toFixed(2)} |`;
    process.stderr.write(`${line}\n`);
    lines.push(line);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
