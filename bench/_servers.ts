/**
 * The servers `npm run bench` knows, on Node, Bun and Deno: the row each makes, what it is
 * compared with, how it starts, what it needs, and the machine and versions line of a run.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { runtimeBinaries } from '../test/runtimes/binaries.ts';
import { BENCH_DIR, ROOT_DIR, type RunningServer, startProcess } from './_harness.ts';
import { TOKEN } from './servers/_common.ts';

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
   * What it runs: `standalone` (the built `dist/cli/main.js`, as `npm start` runs it), a file of
   * `servers/` (Node), or a file of `runtimes/servers/` (Bun and Deno).
   */
  readonly entry: string;
  /** Its environment on top of the bench's. */
  readonly env?: Readonly<Record<string, string>>;
  /** True for its runtime's hand-written bare server, the `× bare` of every other row. */
  readonly bare?: boolean;
  /** The framework row it is held against (`× framework`). */
  readonly framework?: string;
}

/** The servers, in the table's order; each runtime's bare server comes first. */
export const BENCH_SERVERS: readonly BenchServer[] = [
  {
    name: 'node-http',
    runtime: 'node',
    label: 'bare `node:http`',
    entry: 'servers/node-http.ts',
    bare: true,
  },
  { name: 'fastify', runtime: 'node', label: 'Fastify, logger off', entry: 'servers/fastify.ts' },
  {
    name: 'fastify-logger',
    runtime: 'node',
    label: 'Fastify, `logger: true`',
    entry: 'servers/fastify.ts',
    env: { BENCH_FASTIFY_LOGGER: '1' },
  },
  { name: 'srvx', runtime: 'node', label: 'srvx', entry: 'servers/srvx.ts' },
  {
    name: 'node-fetch-server',
    runtime: 'node',
    label: '@remix-run/node-fetch-server',
    entry: 'servers/node-fetch-server.ts',
  },
  {
    name: 'plant-store',
    runtime: 'node',
    label: 'plant-store `serve` (`plant-store/node`)',
    entry: 'servers/plant-store.ts',
    framework: 'fastify',
  },
  {
    name: 'standalone-quiet',
    runtime: 'node',
    label: 'plant-store `npm start`, `PLANT_STORE_LOG=off`',
    entry: 'standalone',
    env: { PLANT_STORE_LOG: 'off' },
    framework: 'fastify',
  },
  {
    name: 'standalone',
    runtime: 'node',
    label: 'plant-store `npm start`, JSON access log',
    entry: 'standalone',
    framework: 'fastify-logger',
  },
  { name: 'bun-bare', runtime: 'bun', label: 'bare `Bun.serve`', entry: 'bare.ts', bare: true },
  { name: 'bun-elysia', runtime: 'bun', label: 'Elysia', entry: 'bun-elysia.ts' },
  {
    name: 'bun-plant-store',
    runtime: 'bun',
    label: 'plant-store `store.fetch` on `Bun.serve`',
    entry: 'plant-store.ts',
    framework: 'bun-elysia',
  },
  {
    name: 'deno-bare',
    runtime: 'deno',
    label: 'bare `Deno.serve`',
    entry: 'bare.ts',
    bare: true,
  },
  { name: 'deno-hono', runtime: 'deno', label: 'Hono on `Deno.serve`', entry: 'deno-hono.ts' },
  {
    name: 'deno-plant-store',
    runtime: 'deno',
    label: 'plant-store `store.fetch` on `Deno.serve`',
    entry: 'plant-store.ts',
    framework: 'deno-hono',
  },
];

/** The servers `names` and `runtimes` select (all of Node's by default); throws on an unknown name. */
export function selectServers(
  names: readonly string[] | undefined,
  runtimes: readonly string[] | undefined = ['node'],
): BenchServer[] {
  for (const runtime of runtimes) {
    if (!RUNTIMES.includes(runtime as Runtime)) {
      throw new TypeError(`unknown runtime ${runtime}; known: ${RUNTIMES.join(', ')}`);
    }
  }
  if (names === undefined) {
    return BENCH_SERVERS.filter((server) => runtimes.includes(server.runtime));
  }
  return names.map((name) => {
    const server = BENCH_SERVERS.find((s) => s.name === name);
    if (server === undefined) {
      const known = BENCH_SERVERS.map((s) => s.name).join(', ');
      throw new TypeError(`unknown server ${name}; known: ${known}`);
    }
    return server;
  });
}

/** The server `name` names. */
export function serverNamed(name: string): BenchServer {
  return BENCH_SERVERS.find((server) => server.name === name) as BenchServer;
}

/**
 * The Node that runs the Node servers: this one when it is Node 24 or newer, else Node 24 from
 * the runtimes' own package (`npm run install:runtimes`). It runs their TypeScript as it is
 * (type stripping), so no loader runs under load.
 */
export const NODE_BINARY =
  Number(process.versions.node.split('.')[0]) >= 24 ? process.execPath : runtimeBinaries.node24;

const BINARY: Readonly<Record<Runtime, string>> = {
  node: NODE_BINARY,
  bun: runtimeBinaries.bun,
  deno: runtimeBinaries.deno,
};

/** Why `server` cannot run on this machine, with the command that fixes it; undefined if it can. */
export function missingFor(server: BenchServer): string | undefined {
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

/** True when `server` loads plant-store's build (`dist/`, `npm run build`). */
export function needsBuild(server: BenchServer): boolean {
  return server.entry === 'standalone' || server.entry.endsWith('plant-store.ts');
}

/** How `server` is started: its runtime's binary and that binary's arguments. */
function argumentsOf(server: BenchServer): string[] {
  if (server.entry === 'standalone') return [join(ROOT_DIR, 'dist', 'cli', 'main.js')];
  if (server.runtime === 'node') return [join(BENCH_DIR, server.entry)];
  const file = join(BENCH_DIR, 'runtimes', 'servers', server.entry);
  if (server.runtime === 'bun') return [file];
  return ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', file];
}

/** The parent's environment without the standalone server's settings, so none leaks in. */
function withoutSettings(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('PLANT_STORE_') || name.startsWith('BENCH_') || name === 'DATABASE_URL') {
      delete env[name];
    }
  }
  return env;
}

/** Starts `server` pinned to the server core and waits for its ready line (`startProcess`). */
export function startBenchServer(server: BenchServer): Promise<RunningServer> {
  const env = { ...withoutSettings(), PLANT_STORE_TOKENS: TOKEN, ...server.env };
  return startProcess(server.name, argumentsOf(server), env, BINARY[server.runtime]);
}

/** The first line a command prints, or `unavailable` when it cannot run. */
function firstLine(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  const out = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0];
  return result.error === undefined && out ? out : 'unavailable';
}

/** A package's version as installed in `nodeModules`, or undefined. */
function packageVersion(nodeModules: string, name: string): string | undefined {
  const file = join(nodeModules, name, 'package.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** The machine and the versions a run measured on, as one line. */
export function describeSetup(servers: readonly BenchServer[]): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const used = new Set(servers.map((server) => server.runtime));
  const runtimes: string[] = [];
  if (used.has('node'))
    runtimes.push(`Node ${firstLine(NODE_BINARY, ['--version']).replace(/^v/, '')}`);
  if (used.has('bun')) runtimes.push(`Bun ${firstLine(BINARY.bun, ['--version'])}`);
  if (used.has('deno')) {
    runtimes.push(firstLine(BINARY.deno, ['--version']).replace(/^deno (\S+).*/, 'Deno $1'));
  }
  const root = join(ROOT_DIR, 'node_modules');
  const packages: [name: string, dir: string, runtime: Runtime][] = [
    ['fastify', root, 'node'],
    ['srvx', root, 'node'],
    ['@remix-run/node-fetch-server', root, 'node'],
    ['elysia', join(BENCH_DIR, 'runtimes', 'node_modules'), 'bun'],
    ['hono', root, 'deno'],
  ];
  const versions = packages.flatMap(([name, dir, runtime]) => {
    const version = used.has(runtime) ? packageVersion(dir, name) : undefined;
    return version === undefined ? [] : [`${name} ${version}`];
  });
  const commit = firstLine('git', ['-C', ROOT_DIR, 'rev-parse', '--short', 'HEAD']);
  const wrk = `wrk ${/\d+\.\d+\.\d+/.exec(firstLine('wrk', ['-v']))?.[0] ?? 'unavailable'}`;
  return (
    `${cpus().length} × ${cpu}; ${runtimes.join(', ')}; ${wrk}; ${versions.join(', ')}; ` +
    `plant-store at ${commit}`
  );
}
