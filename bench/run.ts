/**
 * `npm run bench`: the plant workload over HTTP, every server against bare `node:http`.
 *
 * Each server is first checked for correctness (a failing one is reported, not measured). Then,
 * per round, the servers run in a rotated order, each as a fresh process pinned to core 0:
 * a wrk warm-up, then the measured wrk run (pinned to core 1, 50 keep-alive connections, a
 * unique id per request), then its peak RSS and CPU time. The table gives medians with min-max
 * over the rounds, the ratio to bare `node:http` from the same run, and the server's CPU time per
 * request (user + system), which moves less than req/s on a shared machine. `plant-store` is the
 * library behind `serve`; `standalone` is the standalone server itself as `npm start` runs it
 * (the built `dist/cli/main.js`; `lib/cli/main.ts` with `--loader tsx`), access log on, and
 * `standalone-quiet` the same with `PLANT_STORE_LOG=off`. Five rounds by default: on this
 * shared machine a three-round median still moved by several percent from one run to the next.
 *
 * Flags: --duration <s> (10) --warmup <s> (3) --rounds <n> (5) --connections <n> (50)
 *        --threads <n> (1) --servers a,b,... (all) --loader build|tsx (build) --raw
 * Quick run: `npm run bench -- --duration 2 --warmup 1 --rounds 1`
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import {
  buildServers,
  checkServer,
  cpuMillis,
  integerFlag,
  interleavedRounds,
  killAll,
  loaderFlag,
  median,
  peakRssKiB,
  type RunningServer,
  runWrk,
  SERVERS,
  type ServerName,
  serverNamesFlag,
  spread,
  startServer,
  stopServer,
  type WrkResult,
} from './_harness.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    threads: { type: 'string', default: '1' },
    servers: { type: 'string', default: SERVERS.join(',') },
    loader: { type: 'string', default: 'build' },
    raw: { type: 'boolean', default: false },
  },
});

const duration = integerFlag('duration', values.duration);
const warmup = integerFlag('warmup', values.warmup, 0);
const rounds = integerFlag('rounds', values.rounds);
const connections = integerFlag('connections', values.connections);
const threads = integerFlag('threads', values.threads);
const mode = loaderFlag(values.loader);
const names = serverNamesFlag(values.servers);

const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Sample extends WrkResult {
  readonly rssKiB: number | undefined;
  /** The server's CPU time (user + system) per request of the measured run, in µs. */
  readonly cpuMicros: number;
}

async function measure(name: ServerName): Promise<Sample> {
  let server: RunningServer | undefined;
  try {
    server = await startServer(name, mode);
    if (warmup > 0) {
      await runWrk({ url: server.url, seconds: warmup, connections, threads, idOffset: 1e12 });
    }
    const cpuBefore = cpuMillis(server.pid);
    const result = await runWrk({
      url: server.url,
      seconds: duration,
      connections,
      threads,
      idOffset: 2e12,
    });
    const cpuMicros = ((cpuMillis(server.pid) - cpuBefore) * 1000) / result.requests;
    const rssKiB = peakRssKiB(server.pid);
    if (values.raw) log(result.raw);
    return { ...result, rssKiB, cpuMicros };
  } finally {
    if (server) await stopServer(server);
  }
}

async function main(): Promise<void> {
  log(
    `bench: ${names.length} servers, ${rounds} round(s) of ${warmup} s warm-up + ${duration} s, ` +
      `${connections} connections, ${threads} wrk thread(s), loader ${mode}`,
  );
  if (mode === 'build') await buildServers(names);

  // Correctness first: a server that breaks the contract is reported, not measured.
  const failed = new Map<ServerName, string[]>();
  for (const name of names) {
    let server: RunningServer | undefined;
    try {
      server = await startServer(name, mode);
      const failures = await checkServer(server.url);
      if (failures.length > 0) failed.set(name, failures);
    } catch (error) {
      failed.set(name, [(error as Error).message]);
    } finally {
      if (server) await stopServer(server);
    }
    log(
      `check ${name}: ${failed.has(name) ? `FAILED\n    ${failed.get(name)?.join('\n    ')}` : 'ok'}`,
    );
  }
  const measured = names.filter((name) => !failed.has(name));

  const samples = await interleavedRounds(
    measured,
    rounds,
    measure,
    (sample) =>
      `${sample.requestsPerSecond.toFixed(0)} req/s, ${sample.cpuMicros.toFixed(1)} µs CPU/request, ` +
      `p50 ${sample.p50} ms, p99 ${sample.p99} ms, ` +
      `RSS ${((sample.rssKiB ?? 0) / 1024).toFixed(1)} MiB` +
      (sample.errors > 0 ? `, ${sample.errors} ERRORS` : ''),
  );

  const baseline = samples.get('node-http') ?? [];
  const baseRps = baseline.length > 0 ? median(baseline.map((s) => s.requestsPerSecond)) : NaN;
  const lines = [
    '| server | req/s | × node:http | CPU µs/request | p50 ms | p99 ms | peak RSS MiB | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const name of measured) {
    const runs = samples.get(name) ?? [];
    if (runs.length === 0) {
      lines.push(`| ${name} | failed during the run | | | | | | |`);
      continue;
    }
    const rps = runs.map((s) => s.requestsPerSecond);
    const rss = runs.flatMap((s) => (s.rssKiB === undefined ? [] : [s.rssKiB / 1024]));
    lines.push(
      // Three decimals: the targets sit at 0.9x and 1.0x, where two would round 0.899 up.
      `| ${name} | ${spread(rps, 0)} | ${Number.isNaN(baseRps) ? 'n/a' : (median(rps) / baseRps).toFixed(3)} | ` +
        `${median(runs.map((s) => s.cpuMicros)).toFixed(1)} | ` +
        `${spread(
          runs.map((s) => s.p50),
          2,
        )} | ${spread(
          runs.map((s) => s.p99),
          2,
        )} | ${rss.length > 0 ? spread(rss, 1) : 'n/a'} | ${runs.reduce((n, s) => n + s.errors, 0)} |`,
    );
  }
  for (const [name, failures] of failed) {
    lines.push(
      `| ${name} | not measured: failed the correctness check (${failures[0]}) | | | | | | |`,
    );
  }
  // What the access log costs: the standalone server with it on against the same with it off.
  const logged = samples.get('standalone') ?? [];
  const quiet = samples.get('standalone-quiet') ?? [];
  if (logged.length > 0 && quiet.length > 0) {
    const on = median(logged.map((s) => s.requestsPerSecond));
    const off = median(quiet.map((s) => s.requestsPerSecond));
    lines.push(
      '',
      `The access log costs the standalone server ${((1 - on / off) * 100).toFixed(1)}% of its req/s.`,
    );
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    [
      `Node ${process.version}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ` +
        `wrk -t${threads} -c${connections} -d${duration}s --latency (core 1), servers on core 0; ` +
        `${rounds} round(s) after a ${warmup} s warm-up per process; loader: ${mode}. ` +
        'Medians (min-max); × node:http is the ratio of median req/s.',
      '',
      ...lines,
      '',
    ].join('\n'),
  );
}

main()
  .catch((error: unknown) => {
    log(`bench failed: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(killAll);
