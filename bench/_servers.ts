/**
 * The servers the benches know, on Node, Bun and Deno: the row each makes, what it is compared
 * with, how it starts, what it needs, its correctness check, and the machine and versions line.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { runtimeBinaries } from '../test/runtimes/binaries.ts';
import {
  BENCH_DIR,
  checkExactIds,
  checkServer,
  log,
  median,
  ROOT_DIR,
  type RunningServer,
  type Sample,
  SERVER_CORE,
  spread,
  startProcess,
  withServer,
} from './_harness.ts';
import { TOKEN } from './servers/_common.ts';
import { PG_POOL_MAX } from './servers/_plants.ts';

export type Runtime = 'node' | 'bun' | 'deno';
export const RUNTIMES: readonly Runtime[] = ['node', 'bun', 'deno'];

/** One server of the bench. */
export interface BenchServer {
  /** Its name on the command line (`--servers`). */
  readonly name: string;
  readonly runtime: Runtime;
  /** Its row in the table. */
  readonly label: string;
  /**
   * What it runs: `standalone` (the built `dist/cli/main.js`, as `npm start` runs it), or a file
   * of `servers/` (Node) or of `runtimes/servers/` (Bun and Deno), without `.ts`.
   */
  readonly entry: string;
  /** Its environment on top of the bench's. */
  readonly env?: Readonly<Record<string, string>>;
  /** True for its runtime's hand-written bare server, the `× bare` of every other row. */
  readonly bare?: boolean;
  /** The framework row it is held against (`× framework`). */
  readonly framework?: string;
  /** Left out of the README's table, which `npm run bench:readme` writes; `npm run bench` has it. */
  readonly notInReadme?: true;
}

/** A server of `runtime`, whose entry is its name unless `more` says otherwise. */
const serverOn =
  (runtime: Runtime) =>
  (name: string, label: string, more: Partial<BenchServer> = {}): BenchServer => ({
    name,
    runtime,
    label,
    entry: name,
    ...more,
  });
const [node, bun, deno] = [serverOn('node'), serverOn('bun'), serverOn('deno')];

/** The servers of `npm run bench`, in the table's order; each runtime's bare server comes first. */
export const BENCH_SERVERS: readonly BenchServer[] = [
  node('node-http', 'bare `node:http`', { bare: true }),
  node('fastify', 'Fastify, logger off'),
  node('fastify-logger', 'Fastify, `logger: true`', {
    entry: 'fastify',
    env: { BENCH_FASTIFY_LOGGER: '1' },
  }),
  node('srvx', 'srvx', { notInReadme: true }),
  node('node-fetch-server', '@remix-run/node-fetch-server', { notInReadme: true }),
  node('plant-store', 'plant-store `serve` (`plant-store/node`)', { framework: 'fastify' }),
  node('standalone-quiet', 'plant-store `npm start`, `PLANT_STORE_LOG=off`', {
    entry: 'standalone',
    env: { PLANT_STORE_LOG: 'off' },
    framework: 'fastify',
  }),
  node('standalone', 'plant-store `npm start`, JSON access log', { framework: 'fastify-logger' }),
  bun('bun-bare', 'bare `Bun.serve`', { entry: 'bare', bare: true }),
  bun('bun-elysia', 'Elysia'),
  bun('bun-plant-store', 'plant-store `store.fetch` on `Bun.serve`', {
    entry: 'plant-store',
    framework: 'bun-elysia',
  }),
  deno('deno-bare', 'bare `Deno.serve`', { entry: 'bare', bare: true }),
  deno('deno-hono', 'Hono on `Deno.serve`'),
  deno('deno-plant-store', 'plant-store `store.fetch` on `Deno.serve`', {
    entry: 'plant-store',
    framework: 'deno-hono',
  }),
];

/**
 * The servers of `npm run bench:postgres`, each storing in `DATABASE_URL` through a pool of
 * `PG_POOL_MAX`: the same hand-written servers as `npm run bench`, and the standalone server.
 */
export const POSTGRES_SERVERS: readonly BenchServer[] = [
  node('node-http-pg', 'bare `node:http` + `pg`', { entry: 'node-http', bare: true }),
  node('fastify-pg', 'Fastify + `pg`', { entry: 'fastify' }),
  node('standalone-pg', 'plant-store `npm start`', {
    entry: 'standalone',
    env: { PLANT_STORE_PG_POOL_MAX: String(PG_POOL_MAX) },
    framework: 'fastify-pg',
  }),
];

/** The servers `names` and `runtimes` select (all of Node's by default); throws on an unknown name. */
export function selectServers(
  names: readonly string[] | undefined,
  runtimes: readonly string[] = ['node'],
): BenchServer[] {
  const unknown = runtimes.find((runtime) => !RUNTIMES.includes(runtime as Runtime));
  if (unknown !== undefined) throw new TypeError(`unknown runtime ${unknown}; known: ${RUNTIMES}`);
  if (names === undefined) return BENCH_SERVERS.filter((s) => runtimes.includes(s.runtime));
  return names.map((name) => {
    const server = BENCH_SERVERS.find((s) => s.name === name);
    if (server !== undefined) return server;
    throw new TypeError(`unknown server ${name}; known: ${BENCH_SERVERS.map((s) => s.name)}`);
  });
}

/** The server `name` names. */
export function serverNamed(name: string): BenchServer {
  return [...BENCH_SERVERS, ...POSTGRES_SERVERS].find((s) => s.name === name) as BenchServer;
}

/**
 * The Node that runs the Node servers: this one when it is Node 24 or newer, else Node 24 from
 * the runtimes' own package (`npm run install:runtimes`). It runs their TypeScript as it is
 * (type stripping), so no loader runs under load.
 */
export const NODE_BINARY =
  Number(process.versions.node.split('.')[0]) >= 24 ? process.execPath : runtimeBinaries.node24;

const BINARY = { node: NODE_BINARY, bun: runtimeBinaries.bun, deno: runtimeBinaries.deno } as const;

/** Why `server` cannot run on this machine, with the command that fixes it; undefined if it can. */
function missingFor(server: BenchServer): string | undefined {
  const binary = BINARY[server.runtime];
  if (!existsSync(binary)) {
    const which = server.runtime === 'node' ? 'Node 24' : server.runtime;
    return `${which} is not installed (${binary}): run npm run install:runtimes`;
  }
  if (server.name === 'bun-elysia' && !existsSync(join(BENCH_DIR, 'runtimes', 'node_modules'))) {
    return 'Elysia is not installed: run npm run install:bench-runtimes';
  }
  return undefined;
}

/** Builds `dist/` (`npm run build`) when one of `servers` loads plant-store's build. */
export function buildFor(servers: readonly BenchServer[]): void {
  const needsBuild = (server: BenchServer): boolean =>
    server.entry === 'standalone' || (server.runtime !== 'node' && server.entry === 'plant-store');
  if (!servers.some(needsBuild)) return;
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT_DIR, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');
}

/** How `server` is started from the checkout `root`: its runtime's binary's arguments. */
function argumentsOf(server: BenchServer, root: string): string[] {
  if (server.entry === 'standalone') return [join(root, 'dist', 'cli', 'main.js')];
  if (server.runtime === 'node') return [join(root, 'bench', 'servers', `${server.entry}.ts`)];
  const file = join(root, 'bench', 'runtimes', 'servers', `${server.entry}.ts`);
  if (server.runtime === 'bun') return [file];
  return ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', file];
}

const SETTING = /^(PLANT_STORE_|BENCH_|DATABASE_URL$)/;

/**
 * Starts `server` from the checkout `root` with `env` on top of its own, on `core`, and waits
 * for its ready line.
 */
export function startBenchServer(
  server: BenchServer,
  env: Readonly<Record<string, string>> = {},
  core = SERVER_CORE,
  root = ROOT_DIR,
): Promise<RunningServer> {
  // None of the standalone server's settings leaks in from the bench's own environment.
  const mine = Object.entries(process.env).filter(([name]) => !SETTING.test(name));
  const all = { ...Object.fromEntries(mine), PLANT_STORE_TOKENS: TOKEN, ...server.env, ...env };
  return startProcess(BINARY[server.runtime], argumentsOf(server, root), all, core, root);
}

/**
 * Checks each server in a fresh process from `start`: the ones that passed, and the notes under
 * the table (the servers that round ids past 2^53, those not measured and why).
 */
export async function checkServers(
  servers: readonly BenchServer[],
  start: (server: BenchServer) => Promise<RunningServer> = (server) => startBenchServer(server),
): Promise<{ passed: BenchServer[]; notes: string[] }> {
  const passed: BenchServer[] = [];
  const rounding: string[] = [];
  const notes: string[] = [];
  for (const server of servers) {
    let failure = missingFor(server);
    try {
      failure ??= await withServer(start(server), async ({ url }) => {
        const failures = await checkServer(url);
        if (failures.length > 0) return `failed the check: ${failures.join('; ')}`;
        if ((await checkExactIds(url)).length > 0) rounding.push(server.label);
        return undefined;
      });
    } catch (error) {
      failure = `failed to start: ${(error as Error).message.trim()}`;
    }
    log(`check ${server.name}: ${failure ?? 'ok'}`);
    if (failure === undefined) passed.push(server);
    else notes.push(`Not measured: ${server.label}: ${failure}`);
  }
  if (rounding.length > 0) {
    notes.unshift(`Round ids past 2^53, as their users write them: ${rounding.join('; ')}.`);
  }
  return { passed, notes };
}

/**
 * A measured server's figures, as the tables give them: median req/s with min-max, its ratio to
 * the bare server and to the framework among `servers`, CPU µs per request, p50 and p99 in ms.
 */
export function figures(
  server: BenchServer,
  servers: readonly BenchServer[],
  samplesOf: (name: string) => readonly Sample[],
): string[] {
  const runs = samplesOf(server.name);
  const medianOf = (pick: (sample: Sample) => number): number => median(runs.map(pick));
  const ratio = (other: BenchServer | undefined): number =>
    median(runs.map((s) => s.requestsPerSecond)) /
    median((other === undefined ? [] : samplesOf(other.name)).map((s) => s.requestsPerSecond));
  const vsBare = ratio(servers.find((s) => s.runtime === server.runtime && s.bare === true));
  const framework = servers.find((s) => s.name === server.framework);
  const vsFramework = ratio(framework);
  const rps = runs.map((s) => s.requestsPerSecond);
  return [
    spread(rps, 0),
    Number.isNaN(vsBare) ? 'n/a' : vsBare.toFixed(2),
    Number.isNaN(vsFramework) ? '' : `${vsFramework.toFixed(2)} ${framework?.label}`,
    medianOf((s) => s.cpuMicros).toFixed(1),
    medianOf((s) => s.p50).toFixed(2),
    medianOf((s) => s.p99).toFixed(2),
  ];
}

/** The first line a command prints, or `unavailable` when it cannot run. */
function firstLine(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  const out = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0];
  return result.error === undefined && out ? out : 'unavailable';
}

/** A package's version as installed for the bench, or undefined. */
export function packageVersion(name: string): string | undefined {
  for (const dir of [ROOT_DIR, join(BENCH_DIR, 'runtimes')]) {
    const file = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(file))
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return undefined;
}

/** The framework package each server entry runs, whose version a run names. */
const PACKAGE_OF: Readonly<Record<string, string>> = {
  fastify: 'fastify',
  srvx: 'srvx',
  'node-fetch-server': '@remix-run/node-fetch-server',
  'bun-elysia': 'elysia',
  'deno-hono': 'hono',
};

/** The machine and the versions a run measured on, as one line, `more` before the commit. */
export function describeSetup(
  servers: readonly BenchServer[],
  more: readonly string[] = [],
): string {
  const used = new Set(servers.map((server) => server.runtime));
  const runtimes = [
    used.has('node') && `Node ${firstLine(NODE_BINARY, ['--version']).replace(/^v/, '')}`,
    used.has('bun') && `Bun ${firstLine(BINARY.bun, ['--version'])}`,
    used.has('deno') && firstLine(BINARY.deno, ['--version']).replace(/^deno (\S+).*/, 'Deno $1'),
  ];
  const names = new Set(servers.flatMap((server) => PACKAGE_OF[server.entry] ?? []));
  const versions = [...names].map((name) => `${name} ${packageVersion(name) ?? 'missing'}`);
  const wrk = /\d+\.\d+\.\d+/.exec(firstLine('wrk', ['-v']))?.[0] ?? 'unavailable';
  const commit = firstLine('git', ['-C', ROOT_DIR, 'rev-parse', '--short', 'HEAD']);
  return [
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    runtimes.filter(Boolean).join(', '),
    `wrk ${wrk}`,
    [...versions, ...more].join(', '),
    `plant-store at ${commit}`,
  ]
    .filter((part) => part !== '')
    .join('; ');
}
