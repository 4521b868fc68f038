/**
 * `npm run bench:runtimes`: the plant workload over HTTP on Bun and Deno, every server against
 * its runtime's hand-written bare server, as `npm run bench` does it on Node.
 *
 * Each server is first checked for correctness (`check.ts`; a failing one is reported, not
 * measured; a framework that rounds ids past 2^53 as its users write it is said to). Then, per
 * round, the servers run in a rotated order, each as a fresh process pinned to core 0: a wrk
 * warm-up, the measured wrk run (core 1, 50 keep-alive connections, a new id per request), its
 * peak RSS and CPU time. plant-store is served from the built package (`dist/`, `npm run build`).
 * A runtime whose binary is missing is skipped with the command that installs it.
 *
 * `--decay` serves each plant-store server and, as the control, its runtime's bare server (or
 * those `--servers` names) in one process for `--windows` windows of `--duration` seconds back
 * to back and gives each window's req/s and its ratio to the first, then each server's lowest
 * and last window against its first.
 *
 * Flags: --duration <s> (10) --warmup <s> (3) --rounds <n> (3) --connections <n> (50)
 *        --servers a,b,... --decay --windows <n> (6) --dist <dir> (./dist) --raw
 * Quick run: `npm run bench:runtimes -- --duration 2 --warmup 1 --rounds 1`
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  integerFlag,
  interleavedRounds,
  median,
  type RunningServer,
  type ServerName,
  spread,
  stopServer,
} from '../_harness.ts';
import {
  baselineOf,
  DECAY_SERVERS,
  DEFAULT_SERVERS,
  type RuntimeServer,
  serversNamed,
} from './catalog.ts';
import { checkRuntimeServer } from './check.ts';
import { DEFAULT_DIST, missingFor, startRuntimeServer } from './launch.ts';
import { type Load, measureDecay, measureOnce, type Sample } from './measure.ts';
import { describeSetup } from './versions.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    servers: { type: 'string' },
    decay: { type: 'boolean', default: false },
    windows: { type: 'string', default: '6' },
    dist: { type: 'string', default: DEFAULT_DIST },
    raw: { type: 'boolean', default: false },
  },
});

const load: Load = {
  seconds: integerFlag('duration', values.duration),
  warmup: integerFlag('warmup', values.warmup, 0),
  connections: integerFlag('connections', values.connections),
  dist: resolve(values.dist),
};
const rounds = integerFlag('rounds', values.rounds);
const windows = integerFlag('windows', values.windows);
const servers = serversNamed(
  values.servers ?? (values.decay ? DECAY_SERVERS : DEFAULT_SERVERS).join(','),
);

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const mib = (kib: number | undefined): string =>
  kib === undefined ? 'n/a' : (kib / 1024).toFixed(1);

/** What the correctness check decided for one server. */
interface Verdict {
  readonly measured: boolean;
  /** The table's note: why it was not measured, or that its ids are rounded. */
  readonly note: string;
}

async function check(server: RuntimeServer): Promise<Verdict> {
  const missing = missingFor(server, load.dist);
  if (missing !== undefined) return { measured: false, note: `skipped: ${missing}` };
  let running: RunningServer | undefined;
  try {
    running = await startRuntimeServer(server, load.dist);
    const { failures, idFailures } = await checkRuntimeServer(running.url);
    if (server.exactIds) failures.push(...idFailures);
    if (failures.length > 0) {
      return { measured: false, note: `failed the check: ${failures.join('; ')}` };
    }
    if (idFailures.length > 0) {
      return {
        measured: true,
        note: `ids past 2^53 rounded, as its users get it (${idFailures[0]})`,
      };
    }
    return { measured: true, note: server.exactIds ? 'exact ids' : 'exact ids (unexpectedly)' };
  } catch (error) {
    return { measured: false, note: `failed to start: ${(error as Error).message.trim()}` };
  } finally {
    if (running) await stopServer(running);
  }
}

function describe(sample: Sample): string {
  return (
    `${sample.requestsPerSecond.toFixed(0)} req/s, ${sample.cpuMicros.toFixed(1)} µs CPU/request, ` +
    `p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms, RSS ${mib(sample.rssKiB)} MiB` +
    (sample.errors > 0 ? `, ${sample.errors} ERRORS` : '')
  );
}

function table(
  verdicts: ReadonlyMap<RuntimeServer, Verdict>,
  samples: ReadonlyMap<string, Sample[]>,
): string[] {
  const medianRps = (name: string): number => {
    const runs = samples.get(name) ?? [];
    return runs.length > 0 ? median(runs.map((s) => s.requestsPerSecond)) : Number.NaN;
  };
  const lines = [
    '| runtime | server | req/s | × bare | p50 ms | p99 ms | peak RSS MiB | CPU µs/request | errors | note |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const [server, verdict] of verdicts) {
    const runs = samples.get(server.name) ?? [];
    const head = `| ${server.runtime === 'bun' ? 'Bun' : 'Deno'} | ${server.label} (\`${server.name}\`)`;
    if (!verdict.measured || runs.length === 0) {
      const why = verdict.measured ? 'failed during the run' : verdict.note;
      lines.push(`${head} | not measured | | | | | | | ${why} |`);
      continue;
    }
    const rps = runs.map((s) => s.requestsPerSecond);
    const rss = runs.flatMap((s) => (s.rssKiB === undefined ? [] : [s.rssKiB / 1024]));
    const ratio = median(rps) / medianRps(baselineOf(server));
    lines.push(
      `${head} | ${spread(rps, 0)} | ${Number.isNaN(ratio) ? 'n/a' : ratio.toFixed(3)} | ` +
        `${spread(
          runs.map((s) => s.p50),
          2,
        )} | ${spread(
          runs.map((s) => s.p99),
          2,
        )} | ${rss.length > 0 ? spread(rss, 1) : 'n/a'} | ` +
        `${median(runs.map((s) => s.cpuMicros)).toFixed(1)} | ` +
        `${runs.reduce((n, s) => n + s.errors, 0)} | ${verdict.note} |`,
    );
  }
  return lines;
}

async function runTable(verdicts: ReadonlyMap<RuntimeServer, Verdict>): Promise<string[]> {
  const measured = [...verdicts].filter(([, v]) => v.measured).map(([server]) => server);
  // The harness's rounds take its own server names; these are this bench's, looked up here.
  const byName = new Map(measured.map((server) => [server.name, server]));
  const samples = await interleavedRounds(
    measured.map((server) => server.name as ServerName),
    rounds,
    (name) => measureOnce(byName.get(name) as RuntimeServer, load),
    (sample) => {
      if (values.raw) log(sample.raw);
      return describe(sample);
    },
  );
  return [
    `wrk -t1 -c${load.connections} -d${load.seconds}s --latency on core 1, each server on core 0; ` +
      `${rounds} interleaved round(s), a fresh process and a ${load.warmup} s warm-up each. ` +
      "Medians (min-max); × bare is the ratio of median req/s to that runtime's bare server.",
    '',
    ...table(verdicts, samples),
  ];
}

async function runDecay(verdicts: ReadonlyMap<RuntimeServer, Verdict>): Promise<string[]> {
  const lines = [
    `Decay: one process per server, a ${load.warmup} s warm-up, then ${windows} back-to-back ` +
      `wrk windows of ${load.seconds} s (-t1 -c${load.connections}, core 1; server on core 0).`,
    '',
    '| runtime | server | window | req/s | × first window | CPU µs/request | peak RSS MiB | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const summary = [
    '',
    '| runtime | server | lowest window × first | last window × first |',
    '| --- | --- | ---: | ---: |',
  ];
  for (const [server, verdict] of verdicts) {
    const runtime = server.runtime === 'bun' ? 'Bun' : 'Deno';
    if (!verdict.measured) {
      lines.push(`| ${runtime} | \`${server.name}\` | not measured: ${verdict.note} | | | | | |`);
      continue;
    }
    log(`decay ${server.name}: ${windows} × ${load.seconds} s`);
    try {
      let first = Number.NaN;
      const samples = await measureDecay(server, load, windows, (index, sample) => {
        if (index === 0) first = sample.requestsPerSecond;
        log(`  window ${index + 1}: ${describe(sample)}`);
        lines.push(
          `| ${runtime} | \`${server.name}\` | ${index * load.seconds}-${(index + 1) * load.seconds} s | ` +
            `${sample.requestsPerSecond.toFixed(0)} | ${(sample.requestsPerSecond / first).toFixed(3)} | ` +
            `${sample.cpuMicros.toFixed(1)} | ${mib(sample.rssKiB)} | ${sample.errors} |`,
        );
      });
      const ratios = samples.map((sample) => sample.requestsPerSecond / first);
      summary.push(
        `| ${runtime} | \`${server.name}\` | ${Math.min(...ratios).toFixed(3)} | ` +
          `${(ratios.at(-1) as number).toFixed(3)} |`,
      );
    } catch (error) {
      lines.push(
        `| ${runtime} | \`${server.name}\` | failed: ${(error as Error).message} | | | | | |`,
      );
    }
  }
  return [...lines, ...summary];
}

async function main(): Promise<void> {
  const setup = describeSetup(load.dist);
  for (const line of setup) log(line);
  const verdicts = new Map<RuntimeServer, Verdict>();
  for (const server of servers) {
    const verdict = await check(server);
    verdicts.set(server, verdict);
    log(`check ${server.name}: ${verdict.measured ? 'ok' : 'NOT MEASURED'} (${verdict.note})`);
  }
  const report = values.decay ? await runDecay(verdicts) : await runTable(verdicts);
  process.stdout.write([...setup.map((line) => `${line}  `), '', ...report, ''].join('\n'));
}

main().catch((error: unknown) => {
  log(`bench:runtimes failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
});
