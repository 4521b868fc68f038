/**
 * What every bench shares: the one flag parser, starting a server pinned to a core and stopping
 * it for sure, the correctness check a server passes before it is measured, wrk and its report,
 * the server's CPU time from `/proc`, and the interleaved rounds with their medians.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MAX_BODY_BYTES, READY_PREFIX, TOKEN } from './servers/_common.ts';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = dirname(BENCH_DIR);

/** The cores: the server on one, wrk on the other. */
export const SERVER_CORE = '0';
export const WRK_CORE = '1';

/** The flags the benches take; each bench accepts the ones it uses. */
export interface BenchFlags {
  /** Interleaved rounds: every server measured once per round. */
  readonly rounds: number;
  /** Seconds of each measured wrk run. */
  readonly duration: number;
  /** Seconds of wrk before each measured run. */
  readonly warmup: number;
  /** wrk's keep-alive connections. */
  readonly connections: number;
  /** The servers to measure (`--servers a,b`), or undefined for the bench's default. */
  readonly servers: readonly string[] | undefined;
  /** The runtimes whose servers are measured (`--runtimes node,bun,deno`). */
  readonly runtimes: readonly string[] | undefined;
  /** Write the table into README.md between its bench markers. */
  readonly writeReadme: boolean;
}

export type FlagName = keyof BenchFlags;

const INTEGERS = {
  rounds: { flag: 'rounds', fallback: 5, min: 1 },
  duration: { flag: 'duration', fallback: 10, min: 1 },
  warmup: { flag: 'warmup', fallback: 3, min: 0 },
  connections: { flag: 'connections', fallback: 50, min: 1 },
} as const;

const USAGE: Readonly<Record<FlagName, string>> = {
  rounds: '--rounds <n>        interleaved rounds (5)',
  duration: '--duration <s>      seconds of each measured run (10)',
  warmup: '--warmup <s>        seconds of warm-up before each measured run (3)',
  connections: '--connections <n>   keep-alive connections (50)',
  servers: '--servers a,b,...   only these servers',
  runtimes: '--runtimes a,b,...  node, bun, deno (default: node)',
  writeReadme: '--write-readme      write the table into README.md',
};

/**
 * Parses the command line of a bench that takes the flags `accepted`: `--help` prints the usage
 * and exits; an unknown flag or a bad number prints what is wrong and the usage, and exits 2.
 */
export function parseBenchFlags(
  command: string,
  accepted: readonly FlagName[],
  args: readonly string[] = process.argv.slice(2),
): BenchFlags {
  const flagOf = (name: FlagName): string => (name === 'writeReadme' ? 'write-readme' : name);
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    help: { type: 'boolean' },
  };
  for (const name of accepted) {
    options[flagOf(name)] = { type: name === 'writeReadme' ? 'boolean' : 'string' };
  }
  const usage = [`usage: ${command} [flags]`, ...accepted.map((name) => `  ${USAGE[name]}`)];
  const refuse = (message: string): never => {
    process.stderr.write(`${message}\n${usage.join('\n')}\n`);
    process.exit(2);
  };
  let values: Record<string, string | boolean | undefined> = {};
  try {
    values = parseArgs({ args: [...args], options, strict: true }).values;
  } catch (error) {
    refuse((error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(`${usage.join('\n')}\n`);
    process.exit(0);
  }
  const integer = (name: keyof typeof INTEGERS): number => {
    const { flag, fallback, min } = INTEGERS[name];
    const raw = values[flag];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    return Number.isInteger(n) && n >= min ? n : refuse(`--${flag} must be an integer >= ${min}`);
  };
  const list = (name: string): string[] | undefined => {
    const raw = values[name];
    return typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : undefined;
  };
  return {
    rounds: integer('rounds'),
    duration: integer('duration'),
    warmup: integer('warmup'),
    connections: integer('connections'),
    servers: list('servers'),
    runtimes: list('runtimes'),
    writeReadme: values['write-readme'] === true,
  };
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

/** A ready line: a bench server's (`READY_PREFIX`) or the standalone server's; group 1, the URL. */
const READY_LINE = new RegExp(`(?:^|\\n)(?:${READY_PREFIX}|plant-store listening on )(\\S+)\\n`);

/**
 * Starts `<executable> <args>` pinned to `SERVER_CORE` (taskset execs it, so the pid is the
 * server's) as the benchmark server `name`, in `env` with `PORT=0`, and waits at most 20 s for
 * its ready line. What it prints after that line is drained and dropped, as a log collector
 * would read it.
 */
export function startProcess(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  executable: string = process.execPath,
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
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${name} exited (${code}) before it was ready`)));
    // Read as bytes, so that the access log after the ready line is never decoded here.
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('latin1');
      const url = READY_LINE.exec(stdout)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', () => live.delete(child));
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({ name, child, pid: child.pid as number, url, stderr: () => stderr });
    });
  });
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

/** Rounds' figures as the tables give them: the median, then (min-max) when there are several. */
export function spread(xs: readonly number[], digits: number): string {
  const fmt = (n: number): string =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
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
 * Measures every item once a round for `rounds` rounds, in `rotated` order, and logs each
 * round, each sample (as `describe` words it) and each failure on stderr. An item that fails in
 * a round has no sample for it; the others go on.
 */
export async function interleavedRounds<S>(
  names: readonly string[],
  rounds: number,
  measure: (name: string, round: number) => Promise<S>,
  describe: (sample: S) => string,
): Promise<Map<string, S[]>> {
  const samples = new Map<string, S[]>(names.map((name) => [name, []]));
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

/** A line of progress on stderr, apart from the table on stdout. */
export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The CPU time (user + system, every thread) the process has used so far, in milliseconds. */
export function cpuMillis(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return ticks * (1000 / CLOCK_TICKS_PER_SECOND);
}

/** `getconf CLK_TCK`: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

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
  /** wrk's threads (1 by default: the load generator has one core). */
  readonly threads?: number;
  /** The first id of this run (see plant.lua). */
  readonly idOffset: number;
}

/** Runs wrk, pinned to `WRK_CORE`, with `plant.lua`; killed if it overruns by 30 s. */
export function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    '-c',
    WRK_CORE,
    'wrk',
    `-t${options.threads ?? 1}`,
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

const ID_HEADERS = { authorization: AUTH, 'content-type': JSON_TYPE };

/** A create of `name` under `id` (JSON text), expected to answer `expect` (with the name, if 200). */
function create(what: string, expect: number, id: string, name: string): Probe {
  return {
    what,
    expect,
    init: post(ID_HEADERS, `{"id":${id},"name":"${name}"}`),
    body: expect === 200 ? { name } : undefined,
  };
}

/**
 * Whether a server keeps ids past 2^53 exact, as the contract asks: pairs of ids a double rounds
 * together (2^53 + 1 and 2^53, 2^63 - 2 and 2^63 - 1), where a server that rounds finds the
 * second a conflict (409), and the int64 bounds. Returns the failures, empty when it kept them;
 * a framework written as its users write it rounds them, and is still measured.
 */
export function checkExactIds(url: string): Promise<string[]> {
  return runProbes(url, [
    create('id 2^53 + 1', 200, '9007199254740993', 'a'),
    create('id 2^53 after 2^53 + 1', 200, '9007199254740992', 'b'),
    create('id int64 max', 200, '9223372036854775807', 'max'),
    create('id int64 max - 1 after max', 200, '9223372036854775806', 'x'),
    create('id int64 min', 200, '-9223372036854775808', 'min'),
    create('identical replay of 2^53 + 1', 200, '9007199254740993', 'a'),
    create('conflicting replay of int64 max', 409, '9223372036854775807', 'y'),
    create('id int64 max + 1', 400, '9223372036854775808', 'a'),
  ]);
}
