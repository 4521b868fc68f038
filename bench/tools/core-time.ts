/**
 * `core-time.ts`: where the server's core spends its time, per request, under the
 * wrk load of `npm run bench`, kernel included.
 *
 * The other instruments see part of the core: `bench:profile` and the callgrind scripts see the
 * server's own thread in user space only. Here, while wrk loads the server, `perf record`
 * (pinned to wrk's core, sampling the server's core on its clock) samples everything that core
 * runs: the server's JavaScript, V8 and node's C++, the garbage collector, the kernel's TCP and
 * loopback work done for the server, and the time the core sat idle waiting for requests. Each
 * share of the samples, divided by the requests answered meanwhile (wrk's rate times the sampled
 * seconds), gives microseconds of the core per request, so servers compare by what a request
 * cost them whatever their req/s. Then the symbols whose cost per request differs most from the
 * first server's.
 *
 * Servers run with `--perf-basic-prof`, so JavaScript frames have names. Interleaved rounds as in
 * `npm run bench`; medians with min-max.
 *
 * Needs wrk and perf (Debian packages `wrk`, `linux-perf`) and the right to sample a whole core
 * (root, or `kernel.perf_event_paranoid` at 0 or below).
 *
 * Flags: --servers a,b (node-http,fastify,plant-store) --rounds <n> (3) --duration <s> (10)
 *        --warmup <s> (3) --record <s> (5) --top <n> (15)
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUILD_DIR,
  buildServers,
  integerFlag,
  interleavedRounds,
  killAll,
  median,
  observeUnderLoad,
  SERVER_CORE,
  type ServerName,
  serverNamesFlag,
  spread,
  WRK_CORE,
} from '../_harness.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'node-http,fastify,plant-store' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    record: { type: 'string', default: '5' },
    top: { type: 'string', default: '15' },
  },
});

const rounds = integerFlag('rounds', values.rounds);
const duration = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);
const record = integerFlag('record', values.record);
const top = integerFlag('top', values.top, 0);
/** The recording starts this long into the measured run and must end a second before it does. */
const RECORD_DELAY_S = 2;
if (duration < RECORD_DELAY_S + record + 1) {
  throw new TypeError(`--duration must be at least --record + ${RECORD_DELAY_S + 1}`);
}
const names = serverNamesFlag(values.servers);

/** Samples per second: an odd rate, so the sampling does not beat with a periodic timer. */
const SAMPLE_HZ = 1999;
const RECORD_FILE = join(BUILD_DIR, 'core-time.perf');
const V8_LOG_FILE = join(BUILD_DIR, 'core-time-v8.log');

/** Where a sample of the server's core fell. */
const CATEGORIES = {
  js: "the server's JavaScript (its code and its packages)",
  node: "node's own JavaScript (http, streams, timers)",
  native: "V8's and node's C++, builtins and libc, outside the GC",
  gc: 'the garbage collector, on the main thread and its helpers',
  kernel: 'the kernel, for the server (syscalls, TCP, loopback)',
  idle: 'the core idle: the server waited for requests',
  other: 'anything else that ran on the core',
} as const;
type Category = keyof typeof CATEGORIES;

const GC_SYMBOL = /Scaveng|Marking|MarkCompact|Sweep|Evacuat|Compactor|GCTracer|Heap::Collect/;

/** A perf sample's process and shared object, and its symbol, classified. */
function categoryOf(command: string, object: string, symbol: string): Category {
  if (command === 'swapper') return 'idle';
  // Every thread of the server, V8's helpers included, is named node.
  if (command !== 'node') return 'other';
  if (object === '[kernel.kallsyms]') return 'kernel';
  if (GC_SYMBOL.test(symbol)) return 'gc';
  if (symbol.startsWith('JS:')) return symbol.includes(' node:') ? 'node' : 'js';
  return 'native';
}

/** One server's core time in one round, in microseconds per request. */
interface Sample {
  readonly requestsPerSecond: number;
  readonly byCategory: Record<Category, number>;
  /** Per symbol (object and name; JavaScript positions left out so builds compare). */
  readonly bySymbol: Map<string, number>;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** Samples the server's core for `seconds` into RECORD_FILE, perf itself on wrk's core. */
function recordCore(seconds: number): Promise<void> {
  const args = ['-c', WRK_CORE, 'perf', 'record', '-q', '-e', 'cpu-clock', '-F', `${SAMPLE_HZ}`];
  const child = spawn(
    'taskset',
    [...args, '-C', SERVER_CORE, '-o', RECORD_FILE, '--', 'sleep', `${seconds}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`perf record failed (${code}):\n${stderr}`));
    });
  });
}

/** Reads RECORD_FILE as sample counts per process, object and symbol. */
function readRecording(): { command: string; object: string; symbol: string; samples: number }[] {
  const report = execFileSync(
    'perf',
    // prettier-ignore
    [
      'report', '-i', RECORD_FILE, '--stdio', '--no-children', '-n', '-g', 'none',
      '--sort', 'comm,dso,sym', '--percent-limit', '0',
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const rows = [];
  // "  12.34%  567  node  [kernel.kallsyms]  [k] tcp_ack": columns apart by two spaces or more,
  // while a process or object name may hold one ("kworker/0:2-eve", "[JIT] tid 6616").
  const line = /^\s*[\d.]+%\s+(\d+)\s+(.+?)\s{2,}(.+?)\s+\[.\]\s+(.*)$/;
  for (const text of report.split('\n')) {
    const match = line.exec(text);
    if (match === null) continue;
    const [, samples, command, object, symbol] = match as unknown as string[];
    rows.push({
      command: (command as string).trim(),
      object: (object as string).replace(/ tid \d+$/, ''),
      symbol: (symbol as string).trim(),
      samples: Number(samples),
    });
  }
  return rows;
}

/**
 * A symbol as the tables name it: a JavaScript frame without its line and column (so the same
 * function compares across builds), the server's bundle as `(server)`, a package by its path
 * below `node_modules`, and C++ template arguments folded.
 */
function symbolKey(object: string, symbol: string): string {
  const name = symbol
    .replace(/:\d+:\d+$/, '')
    .replace(/ (?:file:\/\/)?\S*\/bench\/\.build\/\S+$/, ' (server)')
    .replace(/ \S*\/node_modules\//, ' ')
    .replace(/<.*>/, '<…>');
  return `${name} in ${object}`;
}

async function measure(name: ServerName): Promise<Sample> {
  let pid: number | undefined;
  try {
    const load = {
      warmup,
      duration,
      delay: RECORD_DELAY_S,
      connections: 50,
      // --perf-basic-prof also turns on V8's log, which would land in the working directory.
      nodeFlags: ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${V8_LOG_FILE}`],
    };
    const { wrk } = await observeUnderLoad(name, load, (server) => {
      pid = server.pid;
      return recordCore(record);
    });
    if (wrk.errors > 0) throw new Error(`${wrk.errors} failed requests`);
    const requests = wrk.requestsPerSecond * record;
    const microsPerSample = 1e6 / SAMPLE_HZ;
    const byCategory = Object.fromEntries(
      Object.keys(CATEGORIES).map((category) => [category, 0]),
    ) as Record<Category, number>;
    const bySymbol = new Map<string, number>();
    for (const row of readRecording()) {
      const micros = (row.samples * microsPerSample) / requests;
      byCategory[categoryOf(row.command, row.object, row.symbol)] += micros;
      const key = symbolKey(row.object, row.symbol);
      bySymbol.set(key, (bySymbol.get(key) ?? 0) + micros);
    }
    return { requestsPerSecond: wrk.requestsPerSecond, byCategory, bySymbol };
  } finally {
    // The perf map names the JavaScript frames for the report; node leaves it behind.
    if (pid !== undefined) rmSync(`/tmp/perf-${pid}.map`, { force: true });
    rmSync(RECORD_FILE, { force: true });
    rmSync(V8_LOG_FILE, { force: true });
  }
}

/** The symbols whose median cost per request differs most from the first server's. */
function differences(first: Sample[], other: Sample[]): string[] {
  const medianOf = (samples: Sample[], key: string) =>
    median(samples.map((s) => s.bySymbol.get(key) ?? 0));
  const keys = new Set([...first, ...other].flatMap((s) => [...s.bySymbol.keys()]));
  const rows = [...keys]
    .map((key) => ({ key, a: medianOf(first, key), b: medianOf(other, key) }))
    .filter((row) => row.a !== row.b)
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
    .slice(0, top);
  return rows.map(
    (row) =>
      `| ${(row.b - row.a).toFixed(3)} | ${row.a.toFixed(3)} | ${row.b.toFixed(3)} | ` +
      `\`${row.key.replaceAll('|', '\\|')}\` |`,
  );
}

async function main(): Promise<void> {
  log(
    `bench:core-time: ${names.length} servers, ${rounds} round(s) of ${warmup} s warm-up + ` +
      `${duration} s under wrk, ${record} s of it sampled`,
  );
  await buildServers(names);
  const samples = await interleavedRounds(
    names,
    rounds,
    measure,
    (sample) =>
      `${sample.requestsPerSecond.toFixed(0)} req/s, ` +
      `${(total(sample) - sample.byCategory.idle).toFixed(2)} µs busy per request`,
  );

  const categories = Object.keys(CATEGORIES) as Category[];
  const lines = [
    `| server | req/s | busy µs | ${categories.join(' | ')} |`,
    `| --- | ---: | ---: | ${categories.map(() => '---:').join(' | ')} |`,
  ];
  for (const name of names) {
    const runs = samples.get(name) ?? [];
    if (runs.length === 0) {
      lines.push(`| ${name} | failed |${' |'.repeat(categories.length + 1)}`);
      continue;
    }
    const column = (f: (s: Sample) => number, digits: number) => spread(runs.map(f), digits);
    lines.push(
      `| ${name} | ${column((s) => s.requestsPerSecond, 0)} | ${column((s) => total(s) - s.byCategory.idle, 2)} | ` +
        `${categories.map((c) => column((s) => s.byCategory[c], 2)).join(' | ')} |`,
    );
  }
  const legend = categories.map((c) => `- ${c}: ${CATEGORIES[c]}`);
  const [first, ...others] = names;
  const diffs = others.flatMap((name) => {
    const a = samples.get(first as ServerName) ?? [];
    const b = samples.get(name) ?? [];
    if (a.length === 0 || b.length === 0 || top === 0) return [];
    return [
      '',
      `${name} against ${first}, µs per request (medians), the ${top} largest differences:`,
      '',
      `| difference | ${first} | ${name} | symbol |`,
      '| ---: | ---: | ---: | --- |',
      ...differences(a, b),
    ];
  });
  process.stdout.write(
    [
      `Node ${process.version}; wrk -t1 -c50 -d${duration}s (core ${WRK_CORE}); the server's core ` +
        `(${SERVER_CORE}) sampled at ${SAMPLE_HZ} Hz for ${record} s of each run; ${rounds} round(s). ` +
        'Microseconds of the core per request answered; medians (min-max).',
      '',
      ...lines,
      '',
      ...legend,
      ...diffs,
      '',
    ].join('\n'),
  );
}

function total(sample: Sample): number {
  return Object.values(sample.byCategory).reduce((sum, micros) => sum + micros, 0);
}

main()
  .catch((error: unknown) => {
    log(`bench:core-time failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
