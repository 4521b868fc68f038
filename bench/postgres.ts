/**
 * `npm run bench:postgres`: creates against the machine's PostgreSQL, in one interleaved run.
 *
 * Contenders, each with a pool of 10 connections: pgbench running the single-row statement
 * itself (the database's ceiling for it), a bare `node:http` + `pg` server, Fastify + `pg`, and
 * plant-store's standalone server with `DATABASE_URL` (built `dist/`, access log on). wrk posts
 * plants with random ids (every request a create) at each connection count, every contender in
 * turn, round after round. Reported per contender and connection count: req/s, p50 and p99,
 * server CPU per create (from `/proc/<pid>/stat`) and database CPU per create (the postgres
 * backends serving the bench database, from `/proc`).
 *
 * Runs on Node 24, as `npm run bench` does (re-running itself on `npm run install:runtimes`'
 * node24 when this Node is older). Otherwise self-contained: its own small helpers, no harness.
 * Needs wrk; pgbench is skipped when missing. Settings (environment): DATABASE_URL (postgres://postgres@127.0.0.1:5432/test,
 * a superuser's: the bench creates and drops its own database), BENCH_SECONDS (10),
 * BENCH_WARMUP_SECONDS (2), BENCH_ROUNDS (2), BENCH_CONNECTIONS (1,10,100).
 *
 * @module
 */

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { NODE_BINARY } from './_servers.ts';

// Everything runs on the Node the HTTP bench uses (Node 24): re-run on it when this one is older.
if (process.argv[2] !== 'serve' && process.execPath !== NODE_BINARY && existsSync(NODE_BINARY)) {
  const args = [...process.execArgv, ...process.argv.slice(1)];
  process.exit(spawnSync(NODE_BINARY, args, { stdio: 'inherit' }).status ?? 1);
}

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = 'plant_store_bench';
const TOKEN = 'bench-token';
const POOL_SIZE = 10;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,10,100').split(',').map(Number);
const TICKS_PER_SECOND = 100;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const INSERT_ONE =
  'INSERT INTO plants (id, name, tag) VALUES ($1::bigint, $2::text, $3::text) ON CONFLICT (id) DO NOTHING RETURNING true AS created';
const SELECT_ONE = 'SELECT name, tag FROM plants WHERE id = $1::bigint';

const benchUrl = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  return url.href;
})();

// ---- The two hand-written servers, run as `bench/postgres.ts serve <kind> <port>`. ----

/** What both hand-written servers do with a body: the same statements a careful server sends. */
async function createPlant(pool: pg.Pool, body: string): Promise<{ status: number; body: string }> {
  let plant: { id?: unknown; name?: unknown; tag?: unknown };
  try {
    plant = JSON.parse(body);
  } catch {
    return { status: 400, body: '{"error":400}' };
  }
  const { id, name, tag } = plant;
  if (
    typeof id !== 'number' ||
    typeof name !== 'string' ||
    !(tag === undefined || typeof tag === 'string')
  ) {
    return { status: 400, body: '{"error":400}' };
  }
  const reply = JSON.stringify(tag === undefined ? { name } : { name, tag });
  const inserted = await pool.query(INSERT_ONE, [String(id), name, tag ?? null]);
  if (inserted.rows.length > 0) return { status: 200, body: reply };
  const found = await pool.query(SELECT_ONE, [String(id)]);
  const row = found.rows[0] as { name: string; tag: string | null } | undefined;
  if (row !== undefined && row.name === name && (row.tag ?? undefined) === tag) {
    return { status: 200, body: reply };
  }
  return { status: 409, body: '{"error":409}' };
}

async function serve(kind: string, port: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: benchUrl, max: POOL_SIZE, application_name: kind });
  if (kind === 'bare') {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        createPlant(pool, Buffer.concat(chunks).toString()).then(
          (result) => {
            response.writeHead(result.status, { 'content-type': 'application/json' });
            response.end(result.body);
          },
          () => {
            response.writeHead(500).end();
          },
        );
      });
    });
    server.listen(port, '127.0.0.1', () => console.log('ready'));
    return;
  }
  const { default: fastify } = await import('fastify');
  const app = fastify();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/plants', async (request, reply) => {
    const result = await createPlant(pool, request.body as string);
    return reply.code(result.status).type('application/json').send(result.body);
  });
  await app.listen({ port, host: '127.0.0.1' });
  console.log('ready');
}

// ---- Measuring. ----

/** user + system CPU of a process, in clock ticks; 0 once it is gone. */
function cpuTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The postgres backends serving the bench database, with their CPU so far. */
function databaseBackends(): Map<number, number> {
  const backends = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${DATABASE} `)) {
        backends.set(Number(entry), cpuTicks(Number(entry)));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return backends;
}

/**
 * Runs `work` and returns the CPU seconds the server and the database spent meanwhile. The
 * backends are looked at every 100 ms, so one that comes and goes during the run (pgbench's) is
 * counted up to its last look.
 */
async function measured<T>(
  serverPid: number | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; serverCpu: number; databaseCpu: number }> {
  const server0 = serverPid === undefined ? 0 : cpuTicks(serverPid);
  const before = databaseBackends();
  const last = new Map(before);
  const look = () => {
    for (const [pid, ticks] of databaseBackends()) last.set(pid, ticks);
  };
  const timer = setInterval(look, 100);
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(timer);
  }
  look();
  const server1 = serverPid === undefined ? 0 : cpuTicks(serverPid);
  let database = 0;
  // A backend that started meanwhile counts from zero.
  for (const [pid, ticks] of last) database += ticks - (before.get(pid) ?? 0);
  return {
    result,
    serverCpu: (server1 - server0) / TICKS_PER_SECOND,
    databaseCpu: database / TICKS_PER_SECOND,
  };
}

interface Load {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly errors: number;
}

const LUA = `
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${TOKEN}" }
local seeded = false
function request()
  if not seeded then
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
    seeded = true
  end
  local id = string.format("%d%09d", math.random(1, 999999999), math.random(0, 999999999))
  return wrk.format("POST", "/plants", headers, '{"id":' .. id .. ',"name":"Monstera","tag":"aroid"}')
end
`;
const luaPath = join(tmpdir(), `plant-store-bench-postgres-${process.pid}.lua`);

function milliseconds(text: string | undefined): number | undefined {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  if (match === null) return undefined;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

async function wrk(port: number, connections: number, seconds: number): Promise<Load> {
  const threads = Math.min(connections, 2);
  const output = await run('wrk', [
    `-t${threads}`,
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    luaPath,
    `http://127.0.0.1:${port}/plants`,
  ]);
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const errors =
    Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0) +
    Number(
      /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
        .exec(output)
        ?.slice(1)
        .reduce((a, b) => a + Number(b), 0) ?? 0,
    );
  return {
    requests,
    perSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p50Ms: milliseconds(/ 50%\s+(\S+)/.exec(output)?.[1]),
    p99Ms: milliseconds(/ 99%\s+(\S+)/.exec(output)?.[1]),
    errors,
  };
}

async function pgbench(connections: number, seconds: number): Promise<Load> {
  const script = join(tmpdir(), `plant-store-bench-postgres-${process.pid}.sql`);
  writeFileSync(
    script,
    `\\set id random(1, 9000000000000000000)\n${INSERT_ONE.replace('$1::bigint', ':id').replace('$2::text', "'Monstera'").replace('$3::text', "'aroid'")};\n`,
  );
  const output = await run('pgbench', [
    '-n',
    '-M',
    'prepared',
    // As many connections as each server's pool: the database's ceiling for them.
    `-c${Math.min(connections, POOL_SIZE)}`,
    `-j${Math.min(connections, 2)}`,
    `-T${seconds}`,
    '-f',
    script,
    benchUrl,
  ]);
  const requests = Number(
    /number of transactions actually processed: (\d+)/.exec(output)?.[1] ?? 0,
  );
  const average = Number(/latency average = ([\d.]+) ms/.exec(output)?.[1]);
  return {
    requests,
    perSecond: Number(/tps = ([\d.]+)/.exec(output)?.[1] ?? 0),
    p50Ms: Number.isFinite(average) ? average : undefined,
    p99Ms: undefined,
    errors: Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0),
  };
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited ${code}: ${output}`)),
    );
  });
}

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// ---- The contenders. ----

interface Contender {
  readonly name: string;
  readonly pid: number | undefined;
  readonly load: (connections: number, seconds: number) => Promise<Load>;
  readonly stop: () => void;
}

async function startServer(
  name: string,
  command: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  ready: RegExp,
): Promise<Contender> {
  const child: ChildProcess = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk;
      if (!ready.test(seen)) return;
      // From here the output (the access log) is drained unread: kept and searched, it would
      // cost this process more with every line, on the cores the contenders share.
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve();
    };
    child.stdout?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited ${code} before it was ready`)));
  });
  return {
    name,
    pid: child.pid,
    load: (connections, seconds) => wrk(port, connections, seconds),
    stop: () => child.kill('SIGTERM'),
  };
}

async function prepareDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const bench = new pg.Client({ connectionString: benchUrl });
  await bench.connect();
  await bench.query(readFileSync(join(ROOT, 'sql/plants.sql'), 'utf8'));
  await bench.end();
}

async function dropDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
}

function version(command: string, args: string[]): string {
  // wrk prints its version and exits 1: take the output whatever the exit code.
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0] || 'missing';
}

interface Row {
  contender: string;
  connections: number;
  round: number;
  load: Load;
  serverCpu: number;
  databaseCpu: number;
}

function format(rows: Row[]): string {
  const lines = [
    '| contender | conns | req/s | p50 ms | p99 ms | server CPU µs/create | DB CPU µs/create | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const cell = (value: number | undefined, digits = 1) =>
    value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
  for (const connections of CONNECTIONS) {
    for (const name of new Set(rows.map((row) => row.contender))) {
      const mine = rows.filter((row) => row.contender === name && row.connections === connections);
      if (mine.length === 0) continue;
      const sum = (pick: (row: Row) => number) => mine.reduce((total, row) => total + pick(row), 0);
      const requests = sum((row) => row.load.requests);
      const median = (pick: (row: Row) => number | undefined) => {
        const values = mine
          .map(pick)
          .filter((v): v is number => v !== undefined)
          .sort((a, b) => a - b);
        return values[Math.floor(values.length / 2)];
      };
      lines.push(
        `| ${name} | ${connections} | ${cell(sum((row) => row.load.perSecond) / mine.length, 0)} | ${cell(
          median((row) => row.load.p50Ms),
          2,
        )} | ${cell(
          median((row) => row.load.p99Ms),
          2,
        )} | ${name === 'pgbench' ? '–' : cell((sum((row) => row.serverCpu) / requests) * 1e6, 0)} | ${cell((sum((row) => row.databaseCpu) / requests) * 1e6, 0)} | ${sum((row) => row.load.errors)} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (!has('wrk')) throw new Error('wrk is missing: apt-get install wrk');
  try {
    readFileSync(join(ROOT, 'dist/cli/main.js'));
  } catch {
    throw new Error('dist/ is missing: npm run build (npm run bench:postgres builds first)');
  }
  writeFileSync(luaPath, LUA);
  await prepareDatabase();
  const self = fileURLToPath(import.meta.url);
  const contenders: Contender[] = [];
  try {
    if (has('pgbench')) {
      contenders.push({ name: 'pgbench', pid: undefined, load: pgbench, stop: () => {} });
    } else console.error('pgbench is missing (apt-get install postgresql-contrib): skipped');
    contenders.push(
      await startServer(
        'node:http + pg',
        [process.execPath, '--import', 'tsx', self, 'serve', 'bare', '38301'],
        {},
        38301,
        /ready/,
      ),
      await startServer(
        'Fastify + pg',
        [process.execPath, '--import', 'tsx', self, 'serve', 'fastify', '38302'],
        {},
        38302,
        /ready/,
      ),
      await startServer(
        'plant-store',
        [process.execPath, 'dist/cli/main.js'],
        {
          PORT: '38303',
          HOST: '127.0.0.1',
          DATABASE_URL: benchUrl,
          PLANT_STORE_TOKENS: TOKEN,
          PLANT_STORE_PG_POOL_MAX: String(POOL_SIZE),
        },
        38303,
        /listening on/,
      ),
    );
    const rows: Row[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const connections of CONNECTIONS) {
        for (const contender of contenders) {
          if (WARMUP_SECONDS > 0) await contender.load(connections, WARMUP_SECONDS);
          await sleep(200);
          const { result, serverCpu, databaseCpu } = await measured(contender.pid, () =>
            contender.load(connections, SECONDS),
          );
          rows.push({
            contender: contender.name,
            connections,
            round,
            load: result,
            serverCpu,
            databaseCpu,
          });
          console.error(
            `round ${round} ${contender.name} c=${connections}: ${result.perSecond.toFixed(0)}/s p99 ${result.p99Ms ?? '–'} ms`,
          );
        }
      }
    }
    const cpu = cpus()[0]?.model ?? '?';
    console.log(
      `\n${cpus().length} × ${cpu}; Node ${process.version}; ${version('psql', ['--version'])}; ${version('wrk', ['-v'])}; ${version('pgbench', ['--version'])}`,
    );
    console.log(
      `pool ${POOL_SIZE} each; ${ROUNDS} interleaved round(s) of ${SECONDS} s after ${WARMUP_SECONDS} s warm-up; req/s is the mean of the rounds, p50/p99 their median (pgbench: its average latency as p50)\n`,
    );
    console.log(format(rows));
  } finally {
    for (const contender of contenders) contender.stop();
    await sleep(500);
    await dropDatabase();
  }
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3] as string, Number(process.argv[4]));
} else {
  await main();
}
