/**
 * What `bench/run.ts` and `bench/profile.ts` share: the list of servers, starting one pinned
 * to a core (precompiled with esbuild or through tsx), the correctness check, wrk and its
 * output, peak RSS, and stopping a server for sure.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_BODY_BYTES, READY_PREFIX, TOKEN } from './servers/_common.ts';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = dirname(BENCH_DIR);
export const BUILD_DIR = join(BENCH_DIR, '.build');

/** The servers, in the order of the table; `node-http` is the baseline. */
export const SERVERS = [
  'node-http',
  'fastify',
  'hono',
  'srvx',
  'node-fetch-server',
  'plant-store',
  'standalone',
  'standalone-quiet',
] as const;
export type ServerName = (typeof SERVERS)[number];

/**
 * The standalone server itself (what `npm start` and `npx plant-store` run, not a bench
 * entry), with its access log as JSON lines or off (#21: logging must cost at most 15%).
 */
const STANDALONE: Partial<Record<ServerName, Readonly<Record<string, string>>>> = {
  standalone: { PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_LOG: 'json' },
  'standalone-quiet': { PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_LOG: 'off' },
};
/** A ready line: a bench server's (`READY_PREFIX`) or the standalone server's; group 1, the URL. */
const READY_LINE = new RegExp(`(?:^|\\n)(?:${READY_PREFIX}|plant-store listening on )(\\S+)\\n`);

/** How a server's TypeScript is run: precompiled by esbuild, or through tsx's loader. */
export type LoaderMode = 'build' | 'tsx';

/** The cores: the server on one, wrk on the other. */
export const SERVER_CORE = '0';
export const WRK_CORE = '1';

/** Bundles every server (our code only; packages stay external) into `bench/.build`. */
export async function buildServers(names: readonly ServerName[]): Promise<void> {
  if (names.some((name) => STANDALONE[name] !== undefined)) {
    // The standalone server runs from the package's own build, as `npm start` does.
    const built = spawnSync('npm', ['run', 'build', '--silent'], {
      cwd: ROOT_DIR,
      stdio: 'inherit',
    });
    if (built.status !== 0) throw new Error('npm run build failed');
  }
  for (const name of names) {
    if (STANDALONE[name] !== undefined) continue;
    await bundleServer(join(BENCH_DIR, 'servers', `${name}.ts`), join(BUILD_DIR, `${name}.mjs`));
  }
}

/**
 * Bundles one server entry into `outfile` as users run the library (no tsx, no kept names);
 * packages stay external and resolve from this checkout's `node_modules`.
 */
export async function bundleServer(entry: string, outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
}

/** A running benchmark server. */
export interface RunningServer {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** What the server wrote on stderr so far (for reports of a failure). */
  readonly stderr: () => string;
}

const live = new Set<ChildProcess>();

/** Kills every server still running (on exit, on failure, on Ctrl-C). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Starts a server pinned to `SERVER_CORE` (taskset execs node, so the pid is node's) and waits
 * for its ready line, at most 20 s. `onStdout` hears what the server prints after that line (a
 * GC trace, say); without it, that output is drained and dropped.
 */
export function startServer(
  name: ServerName,
  mode: LoaderMode,
  nodeFlags: readonly string[] = [],
  onStdout?: (chunk: Buffer) => void,
): Promise<RunningServer> {
  const { args, env } = serverLaunch(name, mode);
  return startProcess(name, [...nodeFlags, ...args], env, process.execPath, onStdout);
}

/**
 * How node runs a server: its arguments after node's own flags, and its environment (the
 * standalone server's settings in place of any the parent has).
 */
export function serverLaunch(
  name: ServerName,
  mode: LoaderMode,
): { readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv } {
  const standalone = STANDALONE[name];
  if (standalone !== undefined) {
    const args =
      mode === 'build'
        ? [join(ROOT_DIR, 'dist', 'cli', 'main.js')]
        : ['--import', 'tsx', join(ROOT_DIR, 'lib', 'cli', 'main.ts')];
    return { args, env: { ...withoutSettings(), ...standalone } };
  }
  const args =
    mode === 'build'
      ? [join(BUILD_DIR, `${name}.mjs`)]
      : ['--import', 'tsx', join(BENCH_DIR, 'servers', `${name}.ts`)];
  return { args, env: process.env };
}

/** The URL in a server's ready line, once `stdout` holds one. */
export function readyUrl(stdout: string): string | undefined {
  return READY_LINE.exec(stdout)?.[1];
}

/**
 * Starts `<executable> <args>` (node by default; Bun or Deno for `bench:runtimes`) as a
 * benchmark server named `name`, in `env` (the parent's by default); see `startServer`.
 */
export function startProcess(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  executable: string = process.execPath,
  onStdout?: (chunk: Buffer) => void,
): Promise<RunningServer> {
  const child = spawn('taskset', ['-c', SERVER_CORE, executable, ...args], {
    cwd: ROOT_DIR,
    env: { ...env, PORT: '0', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(new Error(`${name}: no ready line within 20 s`)), 20_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${stderr}`));
    };
    child.once('exit', (code) => fail(new Error(`${name} exited (${code}) before it was ready`)));
    // Read as bytes: with an encoding set, every later chunk of the access log would be
    // decoded too, on whichever core this process is scheduled.
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('latin1');
      const url = readyUrl(stdout);
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', () => live.delete(child));
      // From here on stdout (the standalone server's access log) is drained and dropped, as a
      // log collector would read it, without decoding or collecting it here, unless asked for.
      child.stdout?.removeAllListeners('data');
      if (onStdout === undefined) child.stdout?.resume();
      else child.stdout?.on('data', onStdout);
      resolve({
        name,
        child,
        pid: child.pid as number,
        url,
        stderr: () => stderr,
      });
    });
  });
}

/** The parent's environment without the standalone server's settings, so none leaks in. */
function withoutSettings(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('PLANT_STORE_') || name === 'DATABASE_URL') delete env[name];
  }
  return env;
}

/** Stops a server: SIGTERM, then SIGKILL after `graceMs`; resolves when it is gone. */
export function stopServer(server: RunningServer, graceMs = 5000): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      live.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** A command-line flag's value as an integer of at least `min`; throws naming the flag. */
export function integerFlag(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new TypeError(`--${name} must be an integer >= ${min}`);
  }
  return n;
}

/** A `--loader` flag's value as a loader mode; throws on anything but `build` or `tsx`. */
export function loaderFlag(value: string): LoaderMode {
  if (value !== 'build' && value !== 'tsx') throw new TypeError('--loader must be build or tsx');
  return value;
}

/** A `--servers` list (`a,b,...`) as server names; throws on a name not in SERVERS. */
export function serverNamesFlag(list: string): ServerName[] {
  const names = list.split(',').map((name) => name.trim()) as ServerName[];
  for (const name of names) {
    if (!SERVERS.includes(name)) throw new TypeError(`unknown server ${name}; known: ${SERVERS}`);
  }
  return names;
}

/** Rounds' figures as the tables give them: the median, then (min-max) when there are several. */
export function spread(xs: readonly number[], digits: number): string {
  const fmt = (n: number): string => n.toFixed(digits);
  if (xs.length === 1) return fmt(xs[0] as number);
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`;
}

/**
 * The items in round `round`'s order: rotated by one each round, so that no item always runs
 * first or last.
 */
export function rotated<T>(items: readonly T[], round: number): T[] {
  return items.map((_, i) => items[(i + round) % items.length] as T);
}

/**
 * Measures every server once a round for `rounds` rounds, in `rotated` order, and logs each
 * round, each sample (as `describe` words it) and each failure on stderr. A server that fails
 * in a round has no sample for it; the others go on.
 */
export async function interleavedRounds<S>(
  names: readonly ServerName[],
  rounds: number,
  measure: (name: ServerName, round: number) => Promise<S>,
  describe: (sample: S) => string,
): Promise<Map<ServerName, S[]>> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const samples = new Map<ServerName, S[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = rotated(names, round);
    log(`round ${round + 1}/${rounds}: ${order.join(', ')}`);
    for (const name of order) {
      try {
        const sample = await measure(name, round);
        samples.get(name)?.push(sample);
        log(`  ${name}: ${describe(sample)}`);
      } catch (error) {
        log(`  ${name}: FAILED ${(error as Error).message}`);
      }
    }
  }
  return samples;
}

/** The CPU time (user + system) the process has used so far, in milliseconds. */
export function cpuMillis(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return ticks * (1000 / CLOCK_TICKS_PER_SECOND);
}

/** `getconf CLK_TCK`: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The server's peak resident set size in KiB (`VmHWM`), read while it still runs. */
export function peakRssKiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** One request of a correctness check and what must come back. */
export interface Probe {
  readonly what: string;
  readonly expect: number;
  /** The path it is sent to (`/plants` when absent). */
  readonly path?: string;
  readonly init: RequestInit;
  /** The JSON body expected back, if it is checked. */
  readonly body?: unknown;
}

const AUTH = `Bearer ${TOKEN}`;
const JSON_TYPE = 'application/json';

/** A POST of `body` with `headers`, given up after 5 s. */
export function post(headers: Record<string, string>, body?: string): RequestInit {
  return { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) };
}

/**
 * The correctness check: 200 on a new id (exact body), 401 without a token, 400 on a bad body
 * (twice: not JSON, and no id), 409 on a conflicting replay, 200 on an identical replay, 413 on
 * an oversized body, 415 on a wrong content type. Returns the failures, empty when it passed.
 */
export async function checkServer(url: string): Promise<string[]> {
  const ok = { authorization: AUTH, 'content-type': JSON_TYPE };
  const probes: Probe[] = [
    {
      what: 'new id',
      expect: 200,
      init: post(ok, '{"id":7,"name":"Monstera","tag":"aroid"}'),
      body: { name: 'Monstera', tag: 'aroid' },
    },
    {
      what: 'no token',
      expect: 401,
      init: post({ 'content-type': JSON_TYPE }, '{"id":8,"name":"Fern"}'),
    },
    {
      what: 'wrong token',
      expect: 401,
      init: post(
        { authorization: 'Bearer nope', 'content-type': JSON_TYPE },
        '{"id":8,"name":"F"}',
      ),
    },
    { what: 'body not JSON', expect: 400, init: post(ok, '{"id":8,') },
    { what: 'body without id', expect: 400, init: post(ok, '{"name":"Fern"}') },
    { what: 'id not an integer', expect: 400, init: post(ok, '{"id":1.5,"name":"Fern"}') },
    { what: 'conflicting replay', expect: 409, init: post(ok, '{"id":7,"name":"Fern"}') },
    {
      what: 'identical replay',
      expect: 200,
      init: post(ok, '{"id":7,"name":"Monstera","tag":"aroid"}'),
      body: { name: 'Monstera', tag: 'aroid' },
    },
    {
      what: 'oversized body',
      expect: 413,
      init: post(ok, `{"id":9,"name":"Fern","padding":"${'x'.repeat(MAX_BODY_BYTES)}"}`),
    },
    {
      what: 'wrong content type',
      expect: 415,
      init: post({ authorization: AUTH, 'content-type': 'text/plain' }, '{"id":10,"name":"Fern"}'),
    },
  ];
  return runProbes(url, probes);
}

/** Sends each probe to the server at `url` in turn; returns the failures, empty when all passed. */
export async function runProbes(url: string, probes: readonly Probe[]): Promise<string[]> {
  const failures: string[] = [];
  for (const probe of probes) {
    try {
      const response = await fetch(`${url}${probe.path ?? '/plants'}`, probe.init);
      const text = await response.text();
      if (response.status !== probe.expect) {
        failures.push(
          `${probe.what}: ${response.status}, expected ${probe.expect}: ${text.slice(0, 120)}`,
        );
        continue;
      }
      if (
        probe.body !== undefined &&
        JSON.stringify(JSON.parse(text)) !== JSON.stringify(probe.body)
      ) {
        failures.push(`${probe.what}: body ${text.slice(0, 120)}`);
      }
    } catch (error) {
      failures.push(`${probe.what}: ${(error as Error).message}`);
    }
  }
  return failures;
}

/** What one wrk run measured. */
export interface WrkResult {
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Responses that were not 2xx/3xx, plus socket errors: must be 0 for an honest figure. */
  readonly errors: number;
  readonly raw: string;
}

export interface WrkOptions {
  readonly url: string;
  readonly seconds: number;
  readonly connections: number;
  readonly threads: number;
  /** The first id of this run (see plant.lua). */
  readonly idOffset: number;
}

/** Runs wrk, pinned to `WRK_CORE`, with `plant.lua`; killed if it overruns by 30 s. */
export function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    '-c',
    WRK_CORE,
    'wrk',
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '10s',
    '--latency',
    '-s',
    join(BENCH_DIR, 'plant.lua'),
    options.url,
    '--',
    String(options.idOffset),
    TOKEN,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      out += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (options.seconds + 30) * 1000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`wrk exited ${code}:\n${out}`));
      try {
        resolve(parseWrk(out));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** How `observeUnderLoad` loads a server. */
export interface LoadOptions {
  /** Seconds of wrk before the measured run (0 for none). */
  readonly warmup: number;
  /** Seconds of the measured wrk run. */
  readonly duration: number;
  /** Seconds into the measured run when the observation starts. */
  readonly delay: number;
  /** wrk's keep-alive connections. */
  readonly connections: number;
  /** Node flags the server starts with. */
  readonly nodeFlags?: readonly string[];
}

/**
 * Starts a server (its `build`), warms it up with wrk, then runs the measured wrk load and,
 * `delay` seconds into it, `observe` (a capture, a recording) while the load goes on. Resolves
 * with what `observe` found and wrk's figures for the whole measured run; the server is
 * stopped either way.
 */
export async function observeUnderLoad<T>(
  name: ServerName,
  options: LoadOptions,
  observe: (server: RunningServer) => Promise<T>,
): Promise<{ observed: T; wrk: WrkResult }> {
  const server = await startServer(name, 'build', options.nodeFlags);
  try {
    const { url } = server;
    const { connections } = options;
    if (options.warmup > 0) {
      await runWrk({ url, seconds: options.warmup, connections, threads: 1, idOffset: 1e12 });
    }
    const load = runWrk({
      url,
      seconds: options.duration,
      connections,
      threads: 1,
      idOffset: 2e12,
    });
    // Awaited below; marked handled now so that a failed observation cannot leave it unhandled.
    load.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, options.delay * 1000));
    const observed = await observe(server);
    return { observed, wrk: await load };
  } finally {
    await stopServer(server);
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(raw: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(raw);
  if (!match) throw new Error(`no ${percentile}% latency in wrk output:\n${raw}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** Parses wrk's text report (`--latency`). */
export function parseWrk(raw: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(raw);
  const total = /^\s*(\d+) requests in /m.exec(raw);
  if (!rps || !total) throw new Error(`cannot read wrk output:\n${raw}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(raw);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(raw);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: Number(rps[1]),
    p50: latencyMs(raw, '50'),
    p99: latencyMs(raw, '99'),
    requests: Number(total[1]),
    errors: Number(non2xx?.[1] ?? 0) + socketErrors,
    raw,
  };
}
