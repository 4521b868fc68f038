/**
 * `npm run bench`: the create-a-plant workload over HTTP, plant-store beside the bare servers
 * and the frameworks, on Node 24 (and on Bun and Deno with `--runtimes`). `npm run
 * bench:runtimes` is `--runtimes bun,deno`; `npm run bench:readme` measures every runtime and
 * writes the table into README.md between `<!-- bench:start -->` and `<!-- bench:end -->`.
 * The method is in `bench/RESULTS.md`.
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeSample,
  interleavedRounds,
  killAll,
  log,
  markdownTable,
  measureServer,
  parseBenchFlags,
  ROOT_DIR,
  withServer,
} from './_harness.ts';
import {
  buildFor,
  checkServers,
  describeSetup,
  figures,
  selectServers,
  serverNamed,
  startBenchServer,
} from './_servers.ts';

const flags = parseBenchFlags('npm run bench --');
const servers = selectServers(flags.servers, flags.runtimes).filter(
  (server) => !flags.writeReadme || server.notInReadme !== true,
);
const connections = flags.connections[0] as number;

/** Replaces what lies between README.md's bench markers with `block`. */
function writeReadme(block: readonly string[]): void {
  const file = join(ROOT_DIR, 'README.md');
  const [start, end] = ['<!-- bench:start -->', '<!-- bench:end -->'];
  const text = readFileSync(file, 'utf8');
  const [from, to] = [text.indexOf(start), text.indexOf(end)];
  if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end}`);
  const generated = [start, ...block, ''].join('\n');
  writeFileSync(file, `${text.slice(0, from)}${generated}${text.slice(to)}`);
  log('wrote the table into README.md');
}

async function main(): Promise<void> {
  const setup = describeSetup(servers);
  log(
    `bench: ${servers.length} servers, ${flags.rounds} round(s) of ${flags.warmup} s warm-up + ` +
      `${flags.duration} s, ${connections} connections\n${setup}`,
  );
  buildFor(servers);
  const { passed, notes } = await checkServers(servers);
  const samples = await interleavedRounds(
    passed.map((server) => server.name),
    flags.rounds,
    (name) =>
      withServer(startBenchServer(serverNamed(name)), (running) =>
        measureServer(running, flags, { connections }),
      ),
    describeSample,
  );
  const measured = passed.filter((server) => samples.get(server.name)?.length !== 0);
  for (const server of passed.filter((s) => !measured.includes(s))) {
    notes.push(`Not measured: ${server.label}: failed every round`);
  }
  const table = markdownTable(
    ['runtime', 'server', 'req/s', '× bare', '× framework', 'CPU µs/request', 'p50 ms', 'p99 ms'],
    measured.map((server) => [
      { node: 'Node', bun: 'Bun', deno: 'Deno' }[server.runtime],
      server.label,
      ...figures(server, servers, (name) => samples.get(name) ?? []),
    ]),
    2,
  );
  const caption =
    `${setup}. wrk -t1 -c${connections} -d${flags.duration}s on one core, each server on the ` +
    `other, a fresh process per round after a ${flags.warmup} s warm-up; medians of ` +
    `${flags.rounds} interleaved round(s), req/s with min-max; ratios of median req/s from ` +
    'the same run; a new plant created per request.';
  process.stdout.write(
    `${[caption, '', ...table, ...notes.flatMap((note) => ['', note])].join('\n')}\n`,
  );
  // The README gets the table and its caption; the notes (who rounds ids) stay in this output.
  if (flags.writeReadme) writeReadme(['', ...table, '', caption]);
}

main()
  .catch((error: unknown) => {
    log(`bench failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
