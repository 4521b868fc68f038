/**
 * `npm run bench:ab -- <revision> [<revision> ...]`: plant-store's standalone server at several
 * git revisions side by side in one run, with bare `node:http` and Fastify beside them, for
 * judging a change on a machine whose speed drifts between runs.
 *
 * A revision is anything `git rev-parse` takes (`HEAD~1`, a branch, a commit); `.` is the
 * working tree, uncommitted changes included. Each is checked out into `bench/.build/ab/`
 * (`git worktree`, removed afterwards) and its `bench/servers/plant-store.ts` bundled as
 * `npm run bench` bundles servers. Every server is checked for correctness first. Then, per
 * round, each runs as a fresh process pinned to core 0, in a rotated order: a wrk warm-up, then
 * the measured run. The table gives medians over the rounds: req/s and its ratio to the first
 * server listed, and the server's CPU time per request (user + system, from `/proc`), which
 * moves less than req/s when the machine is shared.
 *
 * Flags: --rounds <n> (5) --duration <s> (5) --warmup <s> (2)
 *        --baselines a,b (node-http,fastify; empty for none)
 * Example: `npm run bench:ab -- HEAD~1 .`
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUILD_DIR,
  buildServers,
  bundleServer,
  checkServer,
  cpuMillis,
  integerFlag,
  killAll,
  median,
  ROOT_DIR,
  type RunningServer,
  rotated,
  runWrk,
  SERVERS,
  type ServerName,
  startProcess,
  stopServer,
} from './_harness.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    baselines: { type: 'string', default: 'node-http,fastify' },
  },
});

const rounds = integerFlag('rounds', values.rounds);
const duration = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);
const baselines = values.baselines.split(',').filter((name) => name !== '') as ServerName[];
for (const name of baselines) {
  if (!SERVERS.includes(name)) throw new TypeError(`unknown baseline ${name}; known: ${SERVERS}`);
}
if (positionals.length === 0) throw new TypeError('name at least one revision, such as HEAD~1 .');
if (new Set(positionals).size !== positionals.length) throw new TypeError('a revision repeats');

const AB_DIR = join(BUILD_DIR, 'ab');
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: ROOT_DIR, encoding: 'utf8' }).trim();

/** A server to measure: its label and the bundle that runs it. */
interface Contender {
  readonly label: string;
  readonly bundle: string;
}

/** Checks each revision out and bundles its plant-store server. */
async function prepare(): Promise<Contender[]> {
  const contenders: Contender[] = [];
  rmSync(AB_DIR, { recursive: true, force: true });
  git('worktree', 'prune');
  for (const [index, revision] of positionals.entries()) {
    let source = ROOT_DIR;
    if (revision !== '.') {
      const commit = git('rev-parse', '--verify', `${revision}^{commit}`);
      source = join(AB_DIR, `tree-${index}`);
      git('worktree', 'add', '--detach', source, commit);
    }
    const bundle = join(AB_DIR, `plant-store-${index}.mjs`);
    await bundleServer(join(source, 'bench', 'servers', 'plant-store.ts'), bundle);
    contenders.push({ label: revision === '.' ? '. (working tree)' : revision, bundle });
  }
  await buildServers(baselines);
  for (const name of baselines) {
    contenders.push({ label: name, bundle: join(BUILD_DIR, `${name}.mjs`) });
  }
  return contenders;
}

/** Removes the worktrees, whatever happened. */
function cleanUp(): void {
  rmSync(AB_DIR, { recursive: true, force: true });
  git('worktree', 'prune');
}

interface Sample {
  readonly requestsPerSecond: number;
  readonly cpuMicrosPerRequest: number;
  readonly p99: number;
}

async function measure(contender: Contender): Promise<Sample> {
  let server: RunningServer | undefined;
  try {
    server = await startProcess(contender.label, [contender.bundle]);
    const options = { url: server.url, connections: 50, threads: 1 };
    if (warmup > 0) await runWrk({ ...options, seconds: warmup, idOffset: 1e12 });
    const before = cpuMillis(server.pid);
    const result = await runWrk({ ...options, seconds: duration, idOffset: 2e12 });
    const cpuMicrosPerRequest = ((cpuMillis(server.pid) - before) * 1000) / result.requests;
    if (result.errors > 0)
      throw new Error(`${contender.label}: ${result.errors} errors under load`);
    return { requestsPerSecond: result.requestsPerSecond, cpuMicrosPerRequest, p99: result.p99 };
  } finally {
    if (server) await stopServer(server);
  }
}

async function check(contender: Contender): Promise<void> {
  const server = await startProcess(contender.label, [contender.bundle]);
  try {
    const failures = await checkServer(server.url);
    if (failures.length > 0) throw new Error(`${contender.label} failed: ${failures.join('; ')}`);
  } finally {
    await stopServer(server);
  }
}

async function main(): Promise<void> {
  const contenders = await prepare();
  for (const contender of contenders) await check(contender);
  const samples = new Map<string, Sample[]>(contenders.map(({ label }) => [label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const contender of rotated(contenders, round)) {
      const sample = await measure(contender);
      samples.get(contender.label)?.push(sample);
      log(
        `  round ${round + 1} ${contender.label}: ${sample.requestsPerSecond.toFixed(0)} req/s, ` +
          `${sample.cpuMicrosPerRequest.toFixed(2)} µs CPU/request, p99 ${sample.p99} ms`,
      );
    }
  }
  const medians = contenders.map(({ label }) => {
    const runs = samples.get(label) ?? [];
    return {
      label,
      requestsPerSecond: median(runs.map((s) => s.requestsPerSecond)),
      cpuMicrosPerRequest: median(runs.map((s) => s.cpuMicrosPerRequest)),
      p99: median(runs.map((s) => s.p99)),
    };
  });
  const first = medians[0]?.requestsPerSecond ?? 1;
  const lines = [
    '',
    `Node ${process.version}; ${rounds} round(s) of ${duration} s after a ${warmup} s warm-up; medians.`,
    '',
    '| server | req/s | × first | CPU µs/request | p99 ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...medians.map(
      (m) =>
        `| ${m.label} | ${m.requestsPerSecond.toFixed(0)} | ${(m.requestsPerSecond / first).toFixed(3)} | ` +
        `${m.cpuMicrosPerRequest.toFixed(2)} | ${m.p99.toFixed(2)} |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

try {
  await main();
} finally {
  killAll();
  cleanUp();
}
