/**
 * `promoted.ts`: what each server's requests leave behind for V8's old generation. Node's
 * `--trace-gc-nvp` reports every collection; over one wrk run after a warm-up, this sums the
 * bytes the scavenges promoted (copied out of the young generation, to be freed only by a
 * mark-compact), the scavenges' pauses and the other collections'. Bytes that outlive their
 * request make scavenges longer and mark-compacts more frequent, and with them the latency's
 * tail; a made request id's decimal text was found this way (bench/RESULTS.md).
 *
 * For the other collections (mark-compacts, mostly) it also sums their marking on the main thread
 * and on V8's background threads, and lists the heap growing factor V8 chose after each (from
 * `--trace-gc-verbose`) with the speed ratio it chose it from: the smaller the factor, the sooner
 * the next mark-compact. V8 counts only the main thread's marking in that ratio, which is why,
 * on Node 20, it collects plant-store's heap more often than Fastify's (bench/RESULTS.md, "why V8
 * runs more mark-compacts"; on Node 22 and 24 it chose the smallest factor for Fastify too).
 *
 * Each server runs as `npm run bench` runs it (the standalone servers from the package's build),
 * pinned to core 0 with wrk on core 1, a fresh process per server, one after the other.
 *
 * Flags: --servers a,b (node-http,fastify,plant-store,standalone-quiet) --duration <s> (10)
 *        --warmup <s> (3)
 */
import { parseArgs } from 'node:util';
import {
  buildServers,
  integerFlag,
  runWrk,
  type ServerName,
  serverNamesFlag,
  startServer,
  stopServer,
} from '../_harness.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'node-http,fastify,plant-store,standalone-quiet' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
  },
});
const names = serverNamesFlag(values.servers);
const duration = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);

/** What one server's collections came to over the measured run. */
interface Collections {
  requests: number;
  scavenges: number;
  scavengeMs: number;
  promotedBytes: number;
  others: number;
  otherMs: number;
  mainMarkingMs: number;
  backgroundMarkingMs: number;
  /** Each growing factor V8 chose, with its speed ratio: `1.2 (R 173)`. */
  factors: string[];
}

/** Every collection as one line of fields, and V8's heap growing decisions. */
const TRACE_FLAGS = ['--trace-gc-nvp', '--trace-gc-verbose'];

/** V8's choice of the old generation's growing factor, after a mark-compact (`--trace-gc-verbose`). */
const GROWING_FACTOR = /\[HeapController\] factor ([0-9.]+) based on .*speed_ratio=([0-9]+)/;

/** A number field of a `--trace-gc-nvp` line (`promoted=1234`), or 0. */
function field(line: string, name: string): number {
  const match = new RegExp(` ${name}=([0-9.]+)`).exec(line);
  return match === null ? 0 : Number(match[1]);
}

/** Serves one server under `--trace-gc-nvp`, loads it, and sums the measured run's collections. */
async function measure(name: ServerName): Promise<Collections> {
  const totals: Collections = {
    requests: 0,
    scavenges: 0,
    scavengeMs: 0,
    promotedBytes: 0,
    others: 0,
    otherMs: 0,
    mainMarkingMs: 0,
    backgroundMarkingMs: 0,
    factors: [],
  };
  let measuring = false;
  let pending = '';
  const server = await startServer(name, 'build', TRACE_FLAGS, (chunk) => {
    // Whole lines only; the standalone server's access log lines are not collections.
    const lines = (pending + chunk.toString('latin1')).split('\n');
    pending = lines.pop() ?? '';
    if (!measuring) return;
    for (const line of lines) {
      const factor = GROWING_FACTOR.exec(line);
      if (factor !== null) totals.factors.push(`${factor[1]} (R ${factor[2]})`);
      if (!line.includes(' pause=')) continue;
      const pause = field(line, 'pause');
      if (line.includes(' gc=s ')) {
        totals.scavenges += 1;
        totals.scavengeMs += pause;
        totals.promotedBytes += field(line, 'promoted');
      } else {
        totals.others += 1;
        totals.otherMs += pause;
        totals.mainMarkingMs += field(line, 'incremental') + field(line, 'mark');
        totals.backgroundMarkingMs += field(line, 'background.mark');
      }
    }
  });
  try {
    const { url } = server;
    if (warmup > 0) {
      await runWrk({ url, seconds: warmup, connections: 50, threads: 1, idOffset: 1e12 });
    }
    measuring = true;
    const run = await runWrk({ url, seconds: duration, connections: 50, threads: 1, idOffset: 0 });
    // The lines of the run's last collections may still be in the pipe.
    await new Promise((resolve) => setTimeout(resolve, 200));
    measuring = false;
    totals.requests = run.requests;
    return totals;
  } finally {
    await stopServer(server);
  }
}

await buildServers(names);
const rows: string[] = [];
for (const name of names) {
  const c = await measure(name);
  process.stderr.write(`${name}: ${c.requests} requests, ${c.scavenges} scavenges\n`);
  rows.push(
    `| ${name} | ${c.requests} | ${c.scavenges} | ${c.scavengeMs.toFixed(0)} | ` +
      `${(c.promotedBytes / 1e6).toFixed(1)} | ${(c.promotedBytes / c.requests).toFixed(1)} | ` +
      `${c.others} | ${c.otherMs.toFixed(0)} | ${c.mainMarkingMs.toFixed(0)} | ` +
      `${c.backgroundMarkingMs.toFixed(0)} | ${c.factors.join(', ') || '-'} |`,
  );
}
process.stdout.write(
  `\nNode ${process.version}; wrk -t1 -c50 -d${duration}s after ${warmup} s of warm-up; ` +
    `node --trace-gc-nvp --trace-gc-verbose, the measured run's collections\n\n` +
    '| server | requests | scavenges | their pauses, ms | promoted MB | promoted bytes per request | other collections | their pauses, ms | their marking on the main thread, ms | on background threads, ms | growing factors V8 chose (speed ratio) |\n' +
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n' +
    `${rows.join('\n')}\n`,
);
