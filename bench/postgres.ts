/**
 * `npm run bench:postgres`: creates stored in the machine's PostgreSQL, on the harness of
 * `npm run bench`. plant-store's standalone server (built `dist/`, access log on) beside the
 * bare `node:http` and Fastify servers storing through `pg`, each with a pool of 10, at each
 * connection count. The servers, PostgreSQL and wrk share every core, as on one host; wrk sends
 * random ids. Besides the server's CPU time per create, the table gives the database's: that of
 * the PostgreSQL backends serving the bench's database, from `/proc`.
 *
 * `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test) must be a superuser's: the
 * bench creates its own database, empties its table before each server starts, and drops it.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  cpuMillis,
  describeSample,
  interleavedRounds,
  killAll,
  log,
  markdownTable,
  measureServer,
  median,
  parseBenchFlags,
  ROOT_DIR,
  type Sample,
  withServer,
} from './_harness.ts';
import {
  type BenchServer,
  buildFor,
  checkServers,
  describeSetup,
  figures,
  packageVersion,
  POSTGRES_SERVERS,
  serverNamed,
  startBenchServer,
} from './_servers.ts';
import { PG_POOL_MAX } from './servers/_plants.ts';

const flags = parseBenchFlags(
  'npm run bench:postgres --',
  ['rounds', 'duration', 'warmup', 'connections'],
  { rounds: [2], connections: [1, 10, 100] },
);
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = 'plant_store_bench';
const benchUrl = new URL(ADMIN_URL);
benchUrl.pathname = `/${DATABASE}`;
const EVERY_CORE = `0-${cpus().length - 1}`;

/** Runs `sql` on the database at `url`, on a connection of its own; returns the rows. */
async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The CPU time so far, in ms, of the PostgreSQL backends serving the bench's database. */
function databaseCpuMillis(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${DATABASE} `)) {
        total += cpuMillis(Number(pid));
      }
    } catch {
      // Not a process, or gone meanwhile.
    }
  }
  return total;
}

/** Starts `server` on an empty table, storing in the bench's database. */
async function start(server: BenchServer) {
  await query(benchUrl.href, 'TRUNCATE plants');
  return startBenchServer(server, { DATABASE_URL: benchUrl.href }, EVERY_CORE);
}

/** One measured item: a server at a connection count, as `<server>@<connections>`. */
function measure(item: string): Promise<Sample> {
  const [name, count] = item.split('@') as [string, string];
  const connections = Number(count);
  const load = {
    connections,
    threads: Math.min(connections, 2),
    cores: EVERY_CORE,
    randomIds: true,
  };
  return withServer(start(serverNamed(name)), (running) =>
    measureServer(running, flags, load, databaseCpuMillis),
  );
}

async function main(): Promise<void> {
  buildFor(POSTGRES_SERVERS);
  await query(ADMIN_URL, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await query(ADMIN_URL, `CREATE DATABASE ${DATABASE}`);
  try {
    await query(benchUrl.href, readFileSync(join(ROOT_DIR, 'sql', 'plants.sql'), 'utf8'));
    const [row] = await query(benchUrl.href, 'SHOW server_version');
    const setup = describeSetup(POSTGRES_SERVERS, [
      `pg ${packageVersion('pg')}`,
      `PostgreSQL ${String(row?.server_version).split(' ')[0]}`,
    ]);
    log(`bench:postgres: ${flags.rounds} round(s), connections ${flags.connections}\n${setup}`);
    const { passed, notes } = await checkServers(POSTGRES_SERVERS, start);
    const items = flags.connections.flatMap((c) => passed.map((server) => `${server.name}@${c}`));
    const samples = await interleavedRounds(
      items,
      flags.rounds,
      measure,
      (sample) =>
        `${describeSample(sample)}, database ${sample.otherCpuMicros.toFixed(0)} µs CPU/request`,
    );
    const block = [
      `${setup}. A pool of ${PG_POOL_MAX} connections each; servers, PostgreSQL and wrk ` +
        `(-t2, -t1 at one connection, -d${flags.duration}s) on every core, a fresh process on ` +
        `an empty table per run after a ${flags.warmup} s warm-up; medians of ${flags.rounds} ` +
        'interleaved round(s), creates/s with min-max; a new plant with a random id per request.',
      '',
      ...markdownTable(
        'conns|server|creates/s|× bare|× framework|CPU µs/create|p50 ms|p99 ms|DB CPU µs/create'.split(
          '|',
        ),
        flags.connections.flatMap((c) => {
          const samplesOf = (name: string): Sample[] => samples.get(`${name}@${c}`) ?? [];
          return passed
            .filter((server) => samplesOf(server.name).length > 0)
            .map((server) => [
              String(c),
              server.label,
              ...figures(server, passed, samplesOf),
              median(samplesOf(server.name).map((s) => s.otherCpuMicros)).toFixed(1),
            ]);
        }),
        2,
      ),
      ...notes.flatMap((note) => ['', note]),
    ];
    process.stdout.write(`${block.join('\n')}\n`);
  } finally {
    killAll();
    await query(ADMIN_URL, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  log(`bench:postgres failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
});
