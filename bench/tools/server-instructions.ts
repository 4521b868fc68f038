/**
 * `server-instructions.ts`: the CPU instructions each server's main thread spends
 * per request, whole process (node's HTTP code, the framework, the plant logic, GC on the main
 * thread), counted by valgrind's callgrind. Two runs of one server agree within about 1% (the
 * run's GC moves it), where wrk's req/s moves ±15% on a shared machine, so this is the measure
 * for judging a change to the standalone server, and for comparing servers' work apart from the
 * machine's noise.
 *
 * Each server is bundled as `npm run bench` bundles it (the standalone servers run from the
 * package's build, as `npm start` runs it) and started under callgrind, one output file per
 * thread. A client in this process sends `--warmup` creates over 50 keep-alive
 * connections (each checked for its 200), the counters are zeroed, `--requests` more creates
 * follow, and the counters are dumped. The main thread's total over those is the figure.
 * Background threads (V8's compiler and GC helpers) are left out: under valgrind they keep a
 * pace of their own.
 *
 * With `--functions <n>`, node also runs with `--perf-basic-prof` and each server's `n` most
 * costly functions are listed, by their own instructions per create (JIT-compiled JavaScript
 * named from node's perf map): the way to find where a change should go, and to see what it
 * changed. The perf map costs a little, so the totals of such a run run about 0.5% higher.
 *
 * With `--loader tsx`, each server runs through tsx's loader instead, as `npm run bench -- --loader
 * tsx` runs it: the way to see what the loader's transform costs a request.
 *
 * Needs `valgrind` (Debian package `valgrind`). About two and a half minutes per server.
 *
 * Flags: --servers a,b (node-http,fastify,plant-store) --warmup <n> (8000) --requests <n> (6000)
 *        --functions <n> (0: totals only) --loader build|tsx (build)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUILD_DIR,
  buildServers,
  integerFlag,
  loaderFlag,
  readyUrl,
  type ServerName,
  serverLaunch,
  serverNamesFlag,
} from '../_harness.ts';
import { TOKEN } from '../servers/_common.ts';
import { selfCostByFunction } from './callgrind-functions.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'node-http,fastify,plant-store' },
    warmup: { type: 'string', default: '8000' },
    requests: { type: 'string', default: '6000' },
    functions: { type: 'string', default: '0' },
    loader: { type: 'string', default: 'build' },
  },
});
const names = serverNamesFlag(values.servers);
const warmup = integerFlag('warmup', values.warmup);
const requests = integerFlag('requests', values.requests);
const functions = integerFlag('functions', values.functions, 0);
const mode = loaderFlag(values.loader);
const OUT_DIR = join(BUILD_DIR, 'callgrind');
const CONNECTIONS = 50;

/** Sends `total` creates with ids from `firstId` over keep-alive connections; rejects on a non-200. */
function load(port: number, total: number, firstId: number): Promise<void> {
  let sent = 0;
  let answered = 0;
  return new Promise((resolve, reject) => {
    for (let c = 0; c < CONNECTIONS; c++) {
      const socket = connect(port, '127.0.0.1');
      let buffered = '';
      const next = (): void => {
        if (sent === total) {
          socket.end();
          return;
        }
        const body = `{"id":${firstId + sent++},"name":"Monstera","tag":"aroid"}`;
        socket.write(
          `POST /plants HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      };
      socket.setEncoding('latin1');
      socket.on('error', reject);
      socket.on('connect', next);
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        for (;;) {
          const headEnd = buffered.indexOf('\r\n\r\n');
          if (headEnd === -1) return;
          const length = /content-length: *(\d+)/i.exec(buffered.slice(0, headEnd))?.[1];
          const end = headEnd + 4 + Number(length);
          if (length === undefined || buffered.length < end) return;
          if (!buffered.startsWith('HTTP/1.1 200 ')) {
            reject(new Error(`expected a 200, got: ${buffered.slice(0, 200)}`));
            return;
          }
          buffered = buffered.slice(end);
          if (++answered === total) resolve();
          next();
        }
      });
    }
  });
}

/** One server's count: main-thread instructions per request, and per function when asked. */
interface Measured {
  readonly perRequest: number;
  readonly topFunctions: [string, number][];
}

/** Runs one server under callgrind and counts its main thread's instructions per request. */
async function measure(name: ServerName): Promise<Measured> {
  const prefix = join(OUT_DIR, name);
  const launch = serverLaunch(name, mode);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--separate-threads=yes',
      `--callgrind-out-file=${prefix}.%p`,
      process.execPath,
      ...(functions > 0 ? ['--perf-basic-prof'] : []),
      ...launch.args,
    ],
    {
      // Where node leaves its isolate logs, if any.
      cwd: OUT_DIR,
      env: { ...launch.env, PORT: '0', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let stdout = '';
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`${name} under valgrind exited (${code})`)));
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const url = readyUrl(stdout);
        if (url === undefined) return;
        // The standalone server's access log is drained and dropped from here on.
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve(Number(new URL(url).port));
      });
    });
    const pid = String(child.pid);
    await load(port, warmup, 1e12);
    execFileSync('callgrind_control', ['--zero', pid], { stdio: 'ignore' });
    await load(port, requests, 2e12);
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
  } finally {
    child.kill('SIGKILL');
  }
  // The dump writes one file per thread; thread 1 is the main thread.
  const dump = readdirSync(OUT_DIR).find(
    (file) => file.startsWith(`${name}.${child.pid}.`) && file.endsWith('-01'),
  );
  if (dump === undefined) throw new Error(`no callgrind dump of ${name}'s main thread`);
  const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(OUT_DIR, dump), 'utf8'));
  if (totals === null) throw new Error(`no totals in ${dump}`);
  if (functions === 0) return { perRequest: Number(totals[1]) / requests, topFunctions: [] };
  const perfMap = `/tmp/perf-${child.pid}.map`;
  const costs = selfCostByFunction(join(OUT_DIR, dump), perfMap);
  rmSync(perfMap, { force: true });
  return { perRequest: Number(totals[1]) / requests, topFunctions: costs.slice(0, functions) };
}

rmSync(OUT_DIR, { recursive: true, force: true });
mkdirSync(OUT_DIR, { recursive: true });
await buildServers(names);
const results: [ServerName, Measured][] = [];
for (const name of names) {
  process.stderr.write(`${name}: ${warmup} creates to warm up, then ${requests} counted\n`);
  results.push([name, await measure(name)]);
}
for (const [name, { topFunctions }] of results) {
  if (topFunctions.length === 0) continue;
  console.log(
    `\n${name}: the ${topFunctions.length} most costly functions, own instructions per create\n`,
  );
  console.log('| instructions | function |\n| ---: | --- |');
  for (const [fn, cost] of topFunctions) {
    console.log(
      `| ${Math.round(cost / requests)} | \`${fn.slice(0, 120).replaceAll('|', '\\|')}\` |`,
    );
  }
}
const baseline = results[0]?.[1].perRequest ?? 1;
console.log(`\nNode ${process.version}; main-thread instructions per create (callgrind)\n`);
console.log(`| server | instructions | × ${results[0]?.[0]} |\n| --- | ---: | ---: |`);
for (const [name, { perRequest }] of results) {
  console.log(`| ${name} | ${Math.round(perRequest)} | ${(perRequest / baseline).toFixed(3)} |`);
}
