/**
 * `npm run bench:paired -- --servers a,b`: two servers measured at the same time on the same
 * core, each loaded by its own wrk on the other core, for decisions of a few µs per request. Run
 * one after the other, a server measures ±15% from one window to the next on a shared machine;
 * run side by side, both see the same slow spells, and the difference of their CPU time per
 * request holds to about a µs. A name may end in `@<checkout>` to run that server from another
 * checkout (a worktree of the commit before a change, built with `npm ci && npm run build`).
 *
 * @module
 */
import { resolve } from 'node:path';
import {
  describeSample,
  killAll,
  log,
  markdownTable,
  measureServer,
  median,
  parseBenchFlags,
  ROOT_DIR,
  type Sample,
  spread,
  withServer,
} from './_harness.ts';
import { buildFor, describeSetup, serverNamed, startBenchServer } from './_servers.ts';

const flags = parseBenchFlags(
  'npm run bench:paired --',
  ['rounds', 'duration', 'warmup', 'connections', 'servers'],
  { rounds: [5] },
);

/** A server of the pair: a bench server's name, and the checkout it runs from. */
function pairMember(spec: string): { name: string; label: string; root: string } {
  const [name = '', checkout] = spec.split('@');
  if (serverNamed(name) === undefined) throw new TypeError(`unknown server ${name}`);
  return { name, label: spec, root: checkout === undefined ? ROOT_DIR : resolve(checkout) };
}

async function main(): Promise<void> {
  if (flags.servers?.length !== 2) throw new TypeError('--servers takes exactly two servers');
  const pair = flags.servers.map(pairMember);
  const connections = flags.connections[0] as number;
  log(`paired: ${pair.map((m) => m.label).join(' beside ')}, ${flags.rounds} round(s)`);
  if (pair.some((m) => m.root === ROOT_DIR)) buildFor(pair.map((m) => serverNamed(m.name)));
  const samples: Sample[][] = [[], []];
  for (let round = 0; round < flags.rounds; round++) {
    const runs = pair.map((member) =>
      withServer(startBenchServer(serverNamed(member.name), {}, undefined, member.root), (server) =>
        measureServer(server, flags, { connections }),
      ),
    );
    const [a, b] = (await Promise.all(runs)) as [Sample, Sample];
    samples[0]?.push(a);
    samples[1]?.push(b);
    log(`round ${round + 1}: ${describeSample(a)} | ${describeSample(b)}`);
  }
  const [first, second] = samples as [Sample[], Sample[]];
  const difference = first.map((a, i) => a.cpuMicros - (second[i] as Sample).cpuMicros);
  const rows = pair.map((member, i) => {
    const runs = samples[i] as Sample[];
    return [
      member.label,
      spread(
        runs.map((s) => s.requestsPerSecond),
        0,
      ),
      spread(
        runs.map((s) => s.cpuMicros),
        1,
      ),
    ];
  });
  const lines = [
    `${describeSetup(pair.map((m) => serverNamed(m.name)))}. Both servers on one core at once, ` +
      `each with its own wrk -t1 -c${connections} on the other core; ${flags.rounds} round(s) ` +
      `of ${flags.warmup} s warm-up + ${flags.duration} s.`,
    '',
    ...markdownTable(['server', 'req/s', 'CPU µs/request'], rows, 1),
    '',
    `CPU µs/request, first minus second: ${spread(difference, 2)}; ratio of medians ` +
      `${(median(first.map((s) => s.cpuMicros)) / median(second.map((s) => s.cpuMicros))).toFixed(3)}.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main()
  .catch((error: unknown) => {
    log(`bench failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
