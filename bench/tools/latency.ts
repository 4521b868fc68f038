/**
 * `latency.ts`: each server's own latency under the wrk load of `npm run bench`,
 * measured where the client cannot add to it.
 *
 * wrk's latency runs from its write of a request to its reading of the response, so it holds the
 * client's own delays too: one wrk thread serving 50 connections, and the loopback work the
 * kernel does on the client's core. Here, while wrk loads the server, tcpdump (pinned to wrk's
 * core, so the server's core is left alone) captures a few seconds of loopback traffic, and each
 * request's server-side latency is read from the kernel's timestamps: from the packet that
 * carried the request to the packet that carried its response. That is the time the request
 * waited at the server plus the server's work, nothing of the client's.
 *
 * The capture slows wrk, so wrk's own figures in the same run are worse than `npm run bench`'s
 * and are shown only to set the two measures side by side; the server-side figures are the
 * reason for this script. Interleaved rounds as in `npm run bench`; medians with min-max.
 *
 * Needs wrk and tcpdump (Debian packages `wrk`, `tcpdump`) and the right to capture (root, or
 * CAP_NET_RAW on tcpdump).
 *
 * Flags: --servers a,b (node-http,fastify,plant-store) --rounds <n> (3) --duration <s> (8)
 *        --warmup <s> (3) --capture <s> (3) --connections <n> (50)
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUILD_DIR,
  buildServers,
  integerFlag,
  interleavedRounds,
  killAll,
  observeUnderLoad,
  type ServerName,
  serverNamesFlag,
  spread,
  WRK_CORE,
  type WrkResult,
} from '../_harness.ts';
import { percentile, readCapturedLatencies } from './pcap.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'node-http,fastify,plant-store' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    capture: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});

const rounds = integerFlag('rounds', values.rounds);
const duration = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);
const capture = integerFlag('capture', values.capture);
const connections = integerFlag('connections', values.connections);
/** The capture starts this long into the measured run and must end a second before it does. */
const CAPTURE_DELAY_S = 2;
if (duration < CAPTURE_DELAY_S + capture + 1) {
  throw new TypeError(`--duration must be at least --capture + ${CAPTURE_DELAY_S + 1}`);
}
const names = serverNamesFlag(values.servers);

/** The server-side percentiles reported, in percent. */
const PERCENTILES = [50, 90, 99, 99.9] as const;
const CAPTURE_FILE = join(BUILD_DIR, 'latency.pcap');

const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Sample {
  /** Server-side latency percentiles, milliseconds, in the order of PERCENTILES. */
  readonly server: number[];
  /** Requests answered per second within the capture. */
  readonly capturedPerSecond: number;
  /** wrk's own figures for the whole (captured) run. */
  readonly wrk: WrkResult;
}

/**
 * Captures `seconds` of the server's loopback traffic into CAPTURE_FILE with tcpdump pinned to
 * wrk's core; rejects when tcpdump fails or the kernel dropped packets (a lost request would
 * pair every later response on its connection with the wrong request).
 */
function captureTraffic(port: number, seconds: number): Promise<void> {
  // Only segments with data pushed (requests and responses, not bare ACKs); 128 bytes reach the
  // payload's first bytes past the Ethernet, IPv4 and TCP (with options) headers.
  const filter = `tcp port ${port} and (tcp[tcpflags] & tcp-push != 0)`;
  const args = ['-c', WRK_CORE, 'tcpdump', '-i', 'lo', '-n', '-s', '128', '-B', '65536'];
  const child = spawn('taskset', [...args, '-w', CAPTURE_FILE, filter], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      // tcpdump says when it listens; the capture's seconds count from then.
      if (timer === undefined && stderr.includes('listening on')) {
        timer = setTimeout(() => child.kill('SIGINT'), seconds * 1000);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const dropped = /(\d+) packets? dropped by kernel/.exec(stderr);
      if (code !== 0 || dropped === null) reject(new Error(`tcpdump failed (${code}):\n${stderr}`));
      else if (dropped[1] !== '0')
        reject(new Error(`tcpdump: ${dropped[0]}; try a shorter --capture`));
      else resolve();
    });
  });
}

async function measure(name: ServerName): Promise<Sample> {
  try {
    const load = { warmup, duration, delay: CAPTURE_DELAY_S, connections };
    const { observed: port, wrk } = await observeUnderLoad(name, load, async (server) => {
      const port = Number(new URL(server.url).port);
      await captureTraffic(port, capture);
      return port;
    });
    const { latencies, spanMs } = readCapturedLatencies(CAPTURE_FILE, port);
    if (latencies.length === 0) throw new Error('the capture holds no answered request');
    return {
      server: PERCENTILES.map((p) => percentile(latencies, p)),
      capturedPerSecond: (latencies.length / spanMs) * 1000,
      wrk,
    };
  } finally {
    rmSync(CAPTURE_FILE, { force: true });
  }
}

async function main(): Promise<void> {
  log(
    `bench:latency: ${names.length} servers, ${rounds} round(s) of ${warmup} s warm-up + ` +
      `${duration} s under wrk, ${capture} s of it captured`,
  );
  await buildServers(names);
  const samples = await interleavedRounds(names, rounds, measure, (sample) => {
    const server = PERCENTILES.map((p, i) => `p${p} ${sample.server[i]?.toFixed(2)}`);
    return (
      `server-side ${server.join(', ')} ms; ` +
      `wrk p99 ${sample.wrk.p99} ms, ${sample.wrk.requestsPerSecond.toFixed(0)} req/s` +
      (sample.wrk.errors > 0 ? `, ${sample.wrk.errors} ERRORS` : '')
    );
  });

  const lines = [
    `| server | ${PERCENTILES.map((p) => `server p${p} ms`).join(' | ')} | captured req/s | wrk p50 ms | wrk p99 ms |`,
    `| --- | ${PERCENTILES.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`,
  ];
  for (const name of names) {
    const runs = samples.get(name) ?? [];
    if (runs.length === 0) {
      lines.push(`| ${name} | failed |${' |'.repeat(PERCENTILES.length + 2)}`);
      continue;
    }
    const columns = PERCENTILES.map((_, i) =>
      spread(
        runs.map((s) => s.server[i] as number),
        2,
      ),
    );
    lines.push(
      `| ${name} | ${columns.join(' | ')} | ${spread(
        runs.map((s) => s.capturedPerSecond),
        0,
      )} | ${spread(
        runs.map((s) => s.wrk.p50),
        2,
      )} | ${spread(
        runs.map((s) => s.wrk.p99),
        2,
      )} |`,
    );
  }
  process.stdout.write(
    [
      `Node ${process.version}; wrk -t1 -c${connections} -d${duration}s (core ${WRK_CORE}) with ` +
        `tcpdump on the same core for ${capture} s of each run; ${rounds} round(s). Server-side ` +
        'latency: request packet to response packet, kernel timestamps. Medians (min-max).',
      '',
      ...lines,
      '',
    ].join('\n'),
  );
}

main()
  .catch((error: unknown) => {
    log(`bench:latency failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
