/**
 * `npm run bench`: the create-a-plant workload over HTTP, plant-store beside the bare servers
 * and the frameworks, on Node 24 (and on Bun and Deno with `--runtimes`).
 *
 * Each server is first checked for correctness (a failing one is reported, not measured; one
 * that rounds ids past 2^53, as its users write it, is named). Then, per round, the servers run
 * in a rotated order, each as a fresh process pinned to core 0: a wrk warm-up, then the measured
 * wrk run (core 1, 50 keep-alive connections, a new id per request) and the server's CPU time
 * from `/proc/<pid>/stat`. The table gives medians over the rounds (req/s with min-max), the
 * ratio to the runtime's bare server and to the framework a row is held against, both from the
 * same run, and the CPU time per request, which moves less than req/s on a shared machine.
 *
 * `npm run bench:runtimes` is `--runtimes bun,deno`; `npm run bench:readme` measures every
 * runtime and writes the table into README.md between `<!-- bench:start -->` and
 * `<!-- bench:end -->`.
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  checkExactIds,
  checkServer,
  cpuMillis,
  interleavedRounds,
  killAll,
  log,
  median,
  parseBenchFlags,
  ROOT_DIR,
  type RunningServer,
  runWrk,
  spread,
  stopServer,
  type WrkResult,
} from './_harness.ts';
import {
  type BenchServer,
  describeSetup,
  missingFor,
  needsBuild,
  selectServers,
  serverNamed,
  startBenchServer,
} from './_servers.ts';

const flags = parseBenchFlags('npm run bench --', [
  'rounds',
  'duration',
  'warmup',
  'connections',
  'servers',
  'runtimes',
  'writeReadme',
]);
const servers = selectServers(flags.servers, flags.runtimes);

interface Sample extends WrkResult {
  /** The server's CPU time (user + system) per request of the measured run, in µs. */
  readonly cpuMicros: number;
}

/** One round of one server: a fresh process, a warm-up, then the measured run and its CPU time. */
async function measure(server: BenchServer): Promise<Sample> {
  let running: RunningServer | undefined;
  try {
    running = await startBenchServer(server);
    const { url, pid } = running;
    const { connections } = flags;
    if (flags.warmup > 0) {
      await runWrk({ url, seconds: flags.warmup, connections, idOffset: 1e12 });
    }
    const cpuBefore = cpuMillis(pid);
    const result = await runWrk({ url, seconds: flags.duration, connections, idOffset: 2e12 });
    const cpuMicros = ((cpuMillis(pid) - cpuBefore) * 1000) / result.requests;
    if (result.errors > 0) throw new Error(`${result.errors} errors under load`);
    return { ...result, cpuMicros };
  } finally {
    if (running) await stopServer(running);
  }
}

/**
 * One server's correctness check, in a fresh process: why it is not measured (`failure`), and
 * whether it rounds ids past 2^53 (`rounded`).
 */
async function check(server: BenchServer): Promise<{ failure?: string; rounded?: boolean }> {
  const missing = missingFor(server);
  if (missing !== undefined) return { failure: missing };
  let running: RunningServer | undefined;
  try {
    running = await startBenchServer(server);
    const failures = await checkServer(running.url);
    if (failures.length > 0) return { failure: `failed the check: ${failures.join('; ')}` };
    return { rounded: (await checkExactIds(running.url)).length > 0 };
  } catch (error) {
    return { failure: `failed to start: ${(error as Error).message.trim()}` };
  } finally {
    if (running) await stopServer(running);
  }
}

/** The table's lines: a row per measured server, in the catalog's order. */
function table(samples: ReadonlyMap<string, Sample[]>): string[] {
  const medianOf = (name: string, pick: (sample: Sample) => number): number => {
    const runs = samples.get(name) ?? [];
    return runs.length > 0 ? median(runs.map(pick)) : Number.NaN;
  };
  const rpsOf = (name: string): number => medianOf(name, (s) => s.requestsPerSecond);
  const lines = [
    '| runtime | server | req/s | × bare | × framework | CPU µs/request | p50 ms | p99 ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const server of servers) {
    const runs = samples.get(server.name) ?? [];
    if (runs.length === 0) continue;
    const rps = rpsOf(server.name);
    const bare = servers.find((s) => s.runtime === server.runtime && s.bare === true);
    const vsBare = bare === undefined ? Number.NaN : rps / rpsOf(bare.name);
    const framework = server.framework === undefined ? undefined : serverNamed(server.framework);
    const vsFramework = framework === undefined ? Number.NaN : rps / rpsOf(framework.name);
    const cells = [
      { node: 'Node', bun: 'Bun', deno: 'Deno' }[server.runtime],
      server.label,
      spread(
        runs.map((s) => s.requestsPerSecond),
        0,
      ),
      Number.isNaN(vsBare) ? 'n/a' : vsBare.toFixed(2),
      Number.isNaN(vsFramework) ? '' : `${vsFramework.toFixed(2)} ${framework?.label}`,
      medianOf(server.name, (s) => s.cpuMicros).toFixed(1),
      medianOf(server.name, (s) => s.p50).toFixed(2),
      medianOf(server.name, (s) => s.p99).toFixed(2),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

/** Replaces what lies between README.md's bench markers with `block`. */
function writeReadme(block: readonly string[]): void {
  const file = join(ROOT_DIR, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end}`);
  const generated = [
    start,
    '<!-- Written by `npm run bench:readme`; edit bench/run.ts, not this table. -->',
    '',
    ...block,
    '',
  ];
  writeFileSync(file, `${text.slice(0, from)}${generated.join('\n')}${text.slice(to)}`);
  log('wrote the table into README.md');
}

async function main(): Promise<void> {
  const setup = describeSetup(servers);
  log(
    `bench: ${servers.length} servers, ${flags.rounds} round(s) of ${flags.warmup} s warm-up + ` +
      `${flags.duration} s, ${flags.connections} connections\n${setup}`,
  );
  if (servers.some(needsBuild)) {
    const built = spawnSync('npm', ['run', 'build', '--silent'], {
      cwd: ROOT_DIR,
      stdio: 'inherit',
    });
    if (built.status !== 0) throw new Error('npm run build failed');
  }

  const notMeasured: string[] = [];
  const rounding: string[] = [];
  const measured: BenchServer[] = [];
  for (const server of servers) {
    const verdict = await check(server);
    log(
      `check ${server.name}: ${verdict.failure ?? 'ok'}${verdict.rounded ? ', ids rounded' : ''}`,
    );
    if (verdict.failure !== undefined) notMeasured.push(`${server.label}: ${verdict.failure}`);
    else measured.push(server);
    if (verdict.rounded) rounding.push(server.label);
  }

  const samples = await interleavedRounds(
    measured.map((server) => server.name),
    flags.rounds,
    (name) => measure(serverNamed(name)),
    (sample) =>
      `${sample.requestsPerSecond.toFixed(0)} req/s, ${sample.cpuMicros.toFixed(1)} µs CPU/request, ` +
      `p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms`,
  );
  for (const server of measured) {
    if (samples.get(server.name)?.length === 0)
      notMeasured.push(`${server.label}: failed every round`);
  }

  const block = [
    `${setup}. wrk -t1 -c${flags.connections} -d${flags.duration}s on one core, each server on the ` +
      `other, a fresh process per round after a ${flags.warmup} s warm-up; medians of ` +
      `${flags.rounds} interleaved round(s), req/s with min-max; ratios of median req/s from ` +
      'the same run; a new plant created per request.',
    '',
    ...table(samples),
    ...(rounding.length > 0
      ? ['', `Round ids past 2^53, as their users write them: ${rounding.join('; ')}.`]
      : []),
    ...(notMeasured.length > 0 ? ['', ...notMeasured.map((line) => `Not measured: ${line}`)] : []),
  ];
  process.stdout.write(`${block.join('\n')}\n`);
  if (flags.writeReadme) writeReadme(block);
}

main()
  .catch((error: unknown) => {
    log(`bench failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
