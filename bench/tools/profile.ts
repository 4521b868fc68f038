/**
 * `profile.ts`: a CPU profile of one server under wrk load, summarized.
 *
 * Starts the server (default plant-store, through tsx so that every frame names its source
 * file) with `--cpu-prof`, loads it with wrk as `npm run bench` does, stops it (the profile is
 * written on exit), and prints the top functions by self time, the top by inclusive time, and
 * self time by source (our lib/, node internals, packages, GC).
 *
 * Flags: --server <name> (plant-store) --duration <s> (10) --connections <n> (50)
 *        --loader tsx|build (tsx) --top <n> (25)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_DIR,
  buildServers,
  checkServer,
  integerFlag,
  killAll,
  type LoaderMode,
  ROOT_DIR,
  type RunningServer,
  runWrk,
  SERVERS,
  type ServerName,
  startServer,
  stopServer,
} from '../_harness.ts';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'plant-store' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    loader: { type: 'string', default: 'tsx' },
    top: { type: 'string', default: '25' },
  },
});
const name = values.server as ServerName;
if (!SERVERS.includes(name)) throw new TypeError(`unknown server ${name}`);
const mode = values.loader as LoaderMode;
const duration = integerFlag('duration', values.duration);
const connections = integerFlag('connections', values.connections);
const top = integerFlag('top', values.top, 0);

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(frame: CallFrame): string {
  const url = frame.url.startsWith('file://')
    ? relative(ROOT_DIR, new URL(frame.url).pathname)
    : frame.url;
  return url === '' ? '' : `${url}:${frame.lineNumber + 1}`;
}

function source(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName; // (garbage collector), (program), (idle), natives
  if (url.startsWith('node:'))
    return url.startsWith('node:internal/deps/undici')
      ? 'undici (fetch Request/Response)'
      : 'node internals';
  if (url.includes('/node_modules/'))
    return `package ${url.split('/node_modules/')[1]?.split('/')[0]}`;
  if (url.includes('/lib/')) return `lib/${url.split('/lib/')[1]}`;
  if (url.includes('/bench/')) return 'bench/';
  return url;
}

function summarize(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const key = (node: ProfileNode): string =>
    `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame)}`.trim();

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const bySource = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    total += delta;
    self.set(key(node), (self.get(key(node)) ?? 0) + delta);
    bySource.set(source(node.callFrame), (bySource.get(source(node.callFrame)) ?? 0) + delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame === undefined) break;
      const k = key(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + delta);
    }
  });
  const table = (title: string, map: Map<string, number>, n: number): string[] => [
    `| ${title} | ms | % |`,
    '| --- | ---: | ---: |',
    ...[...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, t]) =>
          `| \`${k.replaceAll('|', '\\|')}\` | ${(t / 1000).toFixed(0)} | ${((100 * t) / total).toFixed(1)} |`,
      ),
    '',
  ];
  return [
    `Profiled ${(total / 1e6).toFixed(1)} s of ${name}.`,
    '',
    ...table('self time by source', bySource, 15),
    ...table('function (self time)', self, top),
    ...table('function (inclusive time)', inclusive, top),
  ].join('\n');
}

async function main(): Promise<void> {
  const dir = join(BENCH_DIR, '.profiles', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (mode === 'build') await buildServers([name]);
  let server: RunningServer | undefined;
  try {
    server = await startServer(name, mode, [
      '--cpu-prof',
      '--cpu-prof-dir',
      dir,
      '--cpu-prof-interval',
      '100',
    ]);
    const failures = await checkServer(server.url);
    if (failures.length > 0) throw new Error(`${name} failed the check:\n${failures.join('\n')}`);
    const result = await runWrk({
      url: server.url,
      seconds: duration,
      connections,
      threads: 1,
      idOffset: 1e12,
    });
    process.stderr.write(
      `${name} under profile: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.errors} errors\n`,
    );
  } finally {
    if (server) await stopServer(server, 15_000);
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written in ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  process.stdout.write(`${summarize(profile)}\nProfile: ${relative(ROOT_DIR, join(dir, file))}\n`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`profile failed: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(killAll);
