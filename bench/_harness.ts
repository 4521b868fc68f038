/**
 * What every bench shares: the one flag parser, starting a server pinned to a core and stopping
 * it for sure, the correctness check a server passes before it is measured, wrk and the CPU time
 * from `/proc` around it, the interleaved rounds with their medians, and the table.
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

/** The cores (`taskset -c`) of a server and of wrk, so that neither takes time from the other. */
export const SERVER_CORE = '0';
export const WRK_CORE = '1';

/** The flags the benches take; each bench accepts the ones it uses. */
export interface BenchFlags {
  readonly rounds: number;
  readonly duration: number;
  readonly warmup: number;
  /** One count, or several for a bench whose default has several. */
  readonly connections: readonly number[];
  readonly servers: readonly string[] | undefined;
  readonly runtimes: readonly string[] | undefined;
  readonly writeReadme: boolean;
}

export type FlagName = keyof BenchFlags;
type Numbers = Record<'rounds' | 'duration' | 'warmup' | 'connections', readonly number[]>;

const DEFAULTS: Numbers = { rounds: [5], duration: [10], warmup: [3], connections: [50] };
const USAGE: Readonly<Record<FlagName, string>> = {
  rounds: '--rounds <n>        interleaved rounds',
  duration: '--duration <s>      seconds of each measured run',
  warmup: '--warmup <s>        seconds of warm-up before each measured run',
  connections: '--connections <n>   keep-alive connections',
  servers: '--servers a,b,...   only these servers',
  runtimes: '--runtimes a,b,...  node, bun, deno (default: node)',
  writeReadme: '--write-readme      write the table into README.md',
};

/**
 * Parses the command line of a bench that takes the flags `accepted` (all by default), with its
 * own `defaults` where they differ: `--help` prints the usage and exits; an unknown flag or a bad
 * number prints what is wrong and the usage, and exits 2.
 */
export function parseBenchFlags(
  command: string,
  accepted = Object.keys(USAGE) as FlagName[],
  defaults: Partial<Numbers> = {},
): BenchFlags {
  const fallback: Numbers = { ...DEFAULTS, ...defaults };
  const flagOf = (name: FlagName): string => (name === 'writeReadme' ? 'write-readme' : name);
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  const usage = [`usage: ${command} [flags]`];
  for (const name of accepted) {
    options[flagOf(name)] = { type: name === 'writeReadme' ? 'boolean' : 'string' };
    const given = fallback[name as keyof Numbers];
    usage.push(`  ${USAGE[name]}${given === undefined ? '' : ` (${given})`}`);
  }
  const refuse = (message: string): never => {
    process.stderr.write(`${message}\n${usage.join('\n')}\n`);
    process.exit(2);
  };
  let values: Record<string, string | boolean | undefined> = {};
  try {
    values = parseArgs({ args: process.argv.slice(2), options, strict: true }).values;
  } catch (error) {
    refuse((error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(`${usage.join('\n')}\n`);
    process.exit(0);
  }
  const numbers = (name: keyof Numbers): readonly number[] => {
    const raw = values[name];
    if (typeof raw !== 'string') return fallback[name];
    const ns = raw.split(',').map(Number);
    const min = name === 'warmup' ? 0 : 1;
    const several = fallback[name].length > 1;
    if ((several || ns.length === 1) && ns.every((n) => Number.isInteger(n) && n >= min)) return ns;
    return refuse(`--${name} takes ${several ? 'integers' : 'an integer'} >= ${min}`);
  };
  const list = (name: string): string[] | undefined => {
    const raw = values[name];
    return typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : undefined;
  };
  return {
    rounds: numbers('rounds')[0] as number,
    duration: numbers('duration')[0] as number,
    warmup: numbers('warmup')[0] as number,
    connections: numbers('connections'),
    servers: list('servers'),
    runtimes: list('runtimes'),
    writeReadme: values['write-readme'] === true,
  };
}

/** A running benchmark server. */
export interface RunningServer {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
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
 * Starts `<executable> <args>` on the cores `cores` (taskset execs it, so the pid is the
 * server's) in `env` with `PORT=0`, and waits at most 20 s for its ready line. What it prints
 * after that line is drained unread, as a log collector would.
 */
export function startProcess(
  executable: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cores: string,
  cwd = ROOT_DIR,
): Promise<RunningServer> {
  const child = spawn('taskset', ['-c', cores, executable, ...args], {
    cwd,
    env: { ...env, PORT: '0', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let [stdout, stderr] = ['', ''];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const fail = (message: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${message}\n${stderr}`));
    };
    const timer = setTimeout(() => fail('no ready line within 20 s'), 20_000);
    const exited = (code: number | null): void => fail(`exited (${code}) before it was ready`);
    child.once('error', (error) => fail(error.message));
    child.once('exit', exited);
    // Read as bytes, so that the access log after the ready line is never decoded here.
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('latin1');
      const url = READY_LINE.exec(stdout)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.off('exit', exited);
      child.stdout.removeAllListeners('data').resume();
      resolve({ child, pid: child.pid as number, url });
    });
  });
}

/** Runs `use` with the server `start` gives, then stops it (SIGTERM, SIGKILL after 5 s). */
export async function withServer<T>(
  start: Promise<RunningServer>,
  use: (server: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await start;
  const { child } = server;
  try {
    return await use(server);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.kill('SIGTERM');
      await gone;
      clearTimeout(force);
    }
  }
}

/** The median of some numbers (the mean of the middle two for an even count; NaN for none). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const [below, middle] = [s[(s.length >> 1) - 1] ?? NaN, s[s.length >> 1] ?? NaN];
  return s.length % 2 === 1 ? middle : (below + middle) / 2;
}

/** Rounds' figures as the tables give them: the median, then (min-max) when there are several. */
export function spread(xs: readonly number[], digits: number): string {
  const fmt = (n: number): string =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  if (xs.length === 1) return fmt(xs[0] as number);
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`;
}

/** The items in round `round`'s order: rotated by one each round, so none always runs first. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  return items.map((_, i) => items[(i + round) % items.length] as T);
}

/**
 * Measures every item once a round for `rounds` rounds, in `rotated` order, and logs each
 * sample (as `describe` words it) and each failure on stderr. An item that fails in a round has
 * no sample for it; the others go on.
 */
export async function interleavedRounds<S>(
  names: readonly string[],
  rounds: number,
  measure: (name: string) => Promise<S>,
  describe: (sample: S) => string,
): Promise<Map<string, S[]>> {
  const samples = new Map<string, S[]>(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = rotated(names, round);
    log(`round ${round + 1}/${rounds}: ${order.join(', ')}`);
    for (const name of order) {
      try {
        const sample = await measure(name);
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

/** A markdown table whose first `left` columns are left-aligned and the others right-aligned. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  left: number,
): string[] {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i < left ? '---' : '---:'))), ...rows.map(line)];
}

/** The CPU time (user + system, every thread) the process has used so far, in milliseconds. */
export function cpuMillis(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime (fields 14 and 15), in ticks of 10 ms (`getconf CLK_TCK` is 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What one measured run gives: wrk's figures, and CPU time per request in µs. */
export interface Sample {
  readonly requestsPerSecond: number;
  readonly requests: number;
  /** Latency percentiles in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  /** The server's CPU time (user + system, every thread). */
  readonly cpuMicros: number;
  /** What `otherCpu` of `measureServer` counts (0 when none is given). */
  readonly otherCpuMicros: number;
}

/** How wrk loads a server. */
export interface Load {
  readonly connections: number;
  /** wrk's threads (1 by default: the load generator has one core). */
  readonly threads?: number;
  /** wrk's cores (`WRK_CORE` by default). */
  readonly cores?: string;
  /** Random ids instead of numbered ones, so that creates land all over a database's index. */
  readonly randomIds?: boolean;
}

/**
 * A wrk warm-up of `warmup` s, then the measured run of `duration` s and the CPU time the
 * server (and `otherCpu`, in ms so far) spent in it. A run with errors is a failure, not a figure.
 */
export async function measureServer(
  server: RunningServer,
  { warmup, duration }: { readonly warmup: number; readonly duration: number },
  load: Load,
  otherCpu: () => number = () => 0,
): Promise<Sample> {
  // Different id offsets, so that the measured run creates plants the warm-up did not.
  if (warmup > 0) await runWrk(server.url, warmup, 1e12, load);
  const before = [cpuMillis(server.pid), otherCpu()] as const;
  const { errors, ...result } = await runWrk(server.url, duration, 2e12, load);
  if (errors > 0) throw new Error(`${errors} errors under load`);
  const perRequest = (ms: number): number => (ms * 1000) / result.requests;
  return {
    ...result,
    cpuMicros: perRequest(cpuMillis(server.pid) - before[0]),
    otherCpuMicros: perRequest(otherCpu() - before[1]),
  };
}

type WrkResult = Omit<Sample, 'cpuMicros' | 'otherCpuMicros'> & { readonly errors: number };

/** Runs wrk with `plant.lua` for `seconds`, its ids from `idOffset`; killed 30 s past its time. */
function runWrk(url: string, seconds: number, idOffset: number, load: Load): Promise<WrkResult> {
  const wrk = ['wrk', `-t${load.threads ?? 1}`, `-c${load.connections}`, `-d${seconds}s`];
  const script = ['-s', join(BENCH_DIR, 'plant.lua'), url, '--', String(idOffset), TOKEN];
  const args = [
    ...wrk,
    '--timeout',
    '10s',
    '--latency',
    ...script,
    load.randomIds ? 'random' : 'numbered',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', load.cores ?? WRK_CORE, ...args]);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`wrk exited ${code}:\n${out}`);
        resolve(parseWrk(out));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** wrk's text report (`--latency`) as figures; non-2xx answers and socket errors are errors. */
function parseWrk(raw: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(raw);
  const total = /^\s*(\d+) requests in /m.exec(raw);
  if (!rps || !total) throw new Error(`cannot read wrk output:\n${raw}`);
  const latencyMs = (percentile: string): number => {
    const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(raw);
    if (!match) throw new Error(`no ${percentile}% latency in wrk output:\n${raw}`);
    return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(raw);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(raw);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: Number(rps[1]),
    requests: Number(total[1]),
    p50: latencyMs('50'),
    p99: latencyMs('99'),
    errors: Number(non2xx?.[1] ?? 0) + socketErrors,
  };
}

/** A sample as the progress lines give it. */
export function describeSample(sample: Sample): string {
  return (
    `${sample.requestsPerSecond.toFixed(0)} req/s, ${sample.cpuMicros.toFixed(1)} µs CPU/request, ` +
    `p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms`
  );
}

/** One request of a correctness check: what it is, the status it must get, its body, its headers. */
type Probe = readonly [
  what: string,
  expect: number,
  body: string,
  headers?: Record<string, string>,
];

const OK_HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const MONSTERA = '{"id":7,"name":"Monstera","tag":"aroid"}';
const FERN = '{"id":8,"name":"Fern"}';
const plant = (id: string, name: string): string => `{"id":${id},"name":"${name}"}`;

/**
 * The correctness check: 200 on a new id, 401 without a token or with a wrong one, 400 on a bad
 * body, 409 on a conflicting replay, 200 on an identical replay, 413 on an oversized body, 415
 * on a wrong content type. Returns the failures, empty when it passed.
 */
export function checkServer(url: string): Promise<string[]> {
  return runProbes(url, [
    ['new id', 200, MONSTERA],
    ['no token', 401, FERN, { 'content-type': 'application/json' }],
    ['wrong token', 401, FERN, { ...OK_HEADERS, authorization: 'Bearer nope' }],
    ['body not JSON', 400, '{"id":8,'],
    ['body without id', 400, '{"name":"Fern"}'],
    ['id not an integer', 400, plant('1.5', 'Fern')],
    ['conflicting replay', 409, plant('7', 'Fern')],
    ['identical replay', 200, MONSTERA],
    ['oversized body', 413, `{"id":9,"name":"Fern","padding":"${'x'.repeat(MAX_BODY_BYTES)}"}`],
    ['wrong content type', 415, FERN, { ...OK_HEADERS, 'content-type': 'text/plain' }],
  ]);
}

/**
 * Whether a server keeps ids past 2^53 exact, as the contract asks: pairs of ids a double rounds
 * together (2^53 + 1 and 2^53, 2^63 - 2 and 2^63 - 1), where a server that rounds finds the
 * second a conflict (409), and the int64 bounds. Returns the failures, empty when it kept them;
 * a framework written as its users write it rounds them, and is still measured.
 */
export function checkExactIds(url: string): Promise<string[]> {
  return runProbes(url, [
    ['id 2^53 + 1', 200, plant('9007199254740993', 'a')],
    ['id 2^53 after 2^53 + 1', 200, plant('9007199254740992', 'b')],
    ['id int64 max', 200, plant('9223372036854775807', 'max')],
    ['id int64 max - 1 after max', 200, plant('9223372036854775806', 'x')],
    ['id int64 min', 200, plant('-9223372036854775808', 'min')],
    ['identical replay of 2^53 + 1', 200, plant('9007199254740993', 'a')],
    ['conflicting replay of int64 max', 409, plant('9223372036854775807', 'y')],
    ['id int64 max + 1', 400, plant('9223372036854775808', 'a')],
  ]);
}

/** A create's plant as its answer gives it: the body sent, without the id. */
function withoutId(body: string): string {
  return JSON.stringify(JSON.parse(body), (key, value: unknown) =>
    key === 'id' ? undefined : value,
  );
}

/**
 * Posts each probe to the server at `url` in turn, each given up after 5 s; a 200 must answer
 * the plant sent without its id. Returns the failures, empty when all passed.
 */
async function runProbes(url: string, probes: readonly Probe[]): Promise<string[]> {
  const failures: string[] = [];
  for (const [what, expect, body, headers = OK_HEADERS] of probes) {
    try {
      const signal = AbortSignal.timeout(5000);
      const response = await fetch(`${url}/plants`, { method: 'POST', headers, body, signal });
      const text = await response.text();
      if (response.status !== expect) {
        failures.push(`${what}: ${response.status}, expected ${expect}: ${text.slice(0, 120)}`);
      } else if (expect === 200 && JSON.stringify(JSON.parse(text)) !== withoutId(body)) {
        failures.push(`${what}: body ${text.slice(0, 120)}`);
      }
    } catch (error) {
      failures.push(`${what}: ${(error as Error).message}`);
    }
  }
  return failures;
}
