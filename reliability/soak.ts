/**
 * The soak: `npm run soak -- [--duration 20] [--connections 32] ...`.
 *
 * Starts the standalone server (`lib/cli/main.ts`, as `npm start` runs it) as a child process on a
 * free loopback port with a known token, and drives it over many keep-alive connections for a
 * set time: unique creates, idempotent replays (the id spelled differently), conflicts, invalid
 * requests of every kind, and same-id races on their own connections. Every answer must have
 * the status its request calls for (never a 5xx) and conform to the OpenAPI document.
 *
 * Then it proves the store holds exactly what was answered: for every plant answered 200, a
 * different plant under its id must answer 409 (it is there) and the same plant 200 (it is
 * equal); every id that was only ever refused must be free (a fresh plant under it answers 200).
 * With `DATABASE_URL` set, the server stores in PostgreSQL, in a schema of the run's own, and the
 * table is also read back and compared row by row.
 *
 * Memory is measured from the outside, with nothing added to the product: the child runs with
 * `--inspect=127.0.0.1:0`, and the soak forces a full GC through the inspector and reads the
 * heap after warm-up and after the run; RSS is sampled from `/proc/<pid>/status`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type Child, spawnChild } from '../test/support/node-helpers.ts';
import { connectInspector, heapAfterGc, type Inspector } from './_inspector.ts';
import {
  type HttpAnswer,
  type HttpCall,
  mib,
  openApiProblem,
  parseFlags,
  pick,
  printTable,
  seededRandom,
  send,
} from './_shared.ts';

const USAGE =
  'npm run soak -- [--duration seconds=20] [--warmup seconds=3] [--connections n=32] [--racers n=2] [--race-width n=4] [--seed n] [--heap-bound-mib n=8] [--heap-per-plant bytes=400]';
const flags = parseFlags(
  process.argv.slice(2),
  {
    duration: 20,
    warmup: 3,
    connections: 32,
    racers: 2,
    'race-width': 4,
    seed: Math.floor(Math.random() * 2 ** 32),
    'heap-bound-mib': 8,
    'heap-per-plant': 400,
  },
  USAGE,
);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = `soak.${Math.random().toString(36).slice(2)}`;
const DATABASE_URL = process.env.DATABASE_URL || undefined;

interface Plant {
  readonly name: string;
  readonly tag?: string;
}

// ---------------------------------------------------------------------------------------------
// What was sent and answered

/** Plants answered 200, by id: what the store must hold, exactly. */
const stored = new Map<bigint, Plant>();
const storedIds: bigint[] = [];
/** Ids that only ever came in refused requests: the store must not hold them. */
const refusedIds = new Set<bigint>();

const counts = {
  requests: 0,
  byKind: new Map<string, number>(),
  byStatus: new Map<number, number>(),
  unexpected: 0,
  serverErrors: 0,
  networkErrors: 0,
  openApiViolations: 0,
  races: 0,
};
const problems: string[] = [];

function problem(text: string): void {
  if (problems.length < 20) problems.push(text);
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

let idCounter = 0n;
/** A fresh id: small ones, and ones past 2^53 of both signs, where a double would round. */
function freshId(): bigint {
  idCounter++;
  if (idCounter % 7n === 0n) return idCounter;
  return (idCounter % 2n === 0n ? -1n : 1n) * (9007199254740993n + idCounter * 1000003n);
}

/** One id written as a JSON number in one of its spellings (`1`, `1.0`, `1e0`, `10e-1`). */
function spell(id: bigint, random: () => number): string {
  return pick(random, [`${id}`, `${id}`, `${id}.0`, `${id}e0`, `${id}0e-1`, `${id}.000`]);
}

const NAMES = [
  'Monstera',
  'Ficus lyrata',
  'Farn 🌿',
  '蕨类植物',
  'Aloe "vera"',
  'back\\slash',
  'Ünïcödé',
  '',
  'tab\tand\nnewline',
  'emoji 🪴🌵',
];
const TAGS = ['aroid', '', 'succulent 🌵', 'fern'];

function randomPlant(random: () => number): Plant {
  const name = `${pick(random, NAMES)} ${Math.floor(random() * 1e6)}`;
  return random() < 0.5 ? { name } : { name, tag: pick(random, TAGS) };
}

function plantJson(idLiteral: string, plant: Plant): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${idLiteral},"name":${JSON.stringify(plant.name)}${tag}}`;
}

function createCall(body: string | Uint8Array, headers: Record<string, string> = {}): HttpCall {
  return {
    method: 'POST',
    path: '/plants',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  };
}

/** An invalid request: what it is, what it must get, and the id it carries (never stored). */
interface Invalid {
  readonly what: string;
  readonly call: HttpCall;
  readonly status: number;
  readonly id?: bigint;
}

/** The invalid requests the soak mixes in; `weight` makes the costly ones rare. */
const INVALID: readonly {
  readonly weight: number;
  readonly make: (id: bigint, random: () => number) => Invalid;
}[] = [
  {
    weight: 4,
    make: (id, random) => ({
      what: 'no token',
      call: {
        ...createCall(plantJson(`${id}`, randomPlant(random))),
        headers: { 'content-type': 'application/json' },
      },
      status: 401,
      id,
    }),
  },
  {
    weight: 4,
    make: (id, random) => ({
      what: 'refused token',
      call: createCall(plantJson(`${id}`, randomPlant(random)), {
        authorization: 'Bearer not-the-token',
      }),
      status: 401,
      id,
    }),
  },
  {
    weight: 2,
    make: (id, random) => ({
      what: 'Basic scheme',
      call: createCall(plantJson(`${id}`, randomPlant(random)), {
        authorization: 'Basic dXNlcjpwYXNz',
      }),
      status: 401,
      id,
    }),
  },
  {
    weight: 3,
    make: (id, random) => ({
      what: 'text/plain',
      call: createCall(plantJson(`${id}`, randomPlant(random)), { 'content-type': 'text/plain' }),
      status: 415,
      id,
    }),
  },
  {
    weight: 2,
    make: (id, random) => ({
      what: 'charset latin1',
      call: createCall(plantJson(`${id}`, randomPlant(random)), {
        'content-type': 'application/json; charset=iso-8859-1',
      }),
      status: 415,
      id,
    }),
  },
  {
    weight: 4,
    make: (id) => ({
      what: 'truncated JSON',
      call: createCall(`{"id":${id},"name":"Fer`),
      status: 400,
      id,
    }),
  },
  {
    weight: 3,
    make: (id) => ({
      what: 'id as a string',
      call: createCall(`{"id":"${id}","name":"x"}`),
      status: 400,
      id,
    }),
  },
  {
    weight: 3,
    make: (id) => ({
      what: 'id 1.5',
      call: createCall(`{"id":${id}.5,"name":"x"}`),
      status: 400,
      id,
    }),
  },
  {
    weight: 2,
    make: () => ({
      what: 'id past int64',
      call: createCall('{"id":9223372036854775808,"name":"x"}'),
      status: 400,
    }),
  },
  {
    weight: 3,
    make: (id) => ({
      what: 'no name',
      call: createCall(`{"id":${id},"tag":"x"}`),
      status: 400,
      id,
    }),
  },
  {
    weight: 3,
    make: (id) => ({
      what: 'tag null',
      call: createCall(`{"id":${id},"name":"x","tag":null}`),
      status: 400,
      id,
    }),
  },
  {
    weight: 2,
    make: (id) => ({
      what: 'lone surrogate',
      call: createCall(`{"id":${id},"name":"\\ud800"}`),
      status: 400,
      id,
    }),
  },
  {
    weight: 2,
    make: (id) => ({
      what: 'invalid UTF-8',
      call: createCall(
        Buffer.concat([
          Buffer.from(`{"id":${id},"name":"`),
          Buffer.from([0xc3, 0x28]),
          Buffer.from('"}'),
        ]),
      ),
      status: 400,
      id,
    }),
  },
  {
    weight: 2,
    make: () => ({
      what: 'empty body',
      call: createCall('', { 'content-length': '0' }),
      status: 400,
    }),
  },
  {
    weight: 2,
    make: () => ({
      what: 'GET /plants',
      call: { method: 'GET', path: '/plants', headers: {} },
      status: 405,
    }),
  },
  {
    weight: 2,
    make: (id, random) => ({
      what: 'unknown path',
      call: { ...createCall(plantJson(`${id}`, randomPlant(random))), path: '/plant' },
      status: 404,
      id,
    }),
  },
  {
    weight: 1,
    make: () => ({
      what: 'GET /openapi.json',
      call: { method: 'GET', path: '/openapi.json', headers: {} },
      status: 200,
    }),
  },
  {
    weight: 0.2,
    make: (id) => ({
      what: 'body over 100 KiB',
      call: createCall(`{"id":${id},"name":"${'x'.repeat(102_400)}"}`),
      status: 413,
      id,
    }),
  },
];
const INVALID_WEIGHT = INVALID.reduce((sum, entry) => sum + entry.weight, 0);

function pickInvalid(random: () => number): Invalid {
  let left = random() * INVALID_WEIGHT;
  for (const entry of INVALID) {
    left -= entry.weight;
    if (left <= 0) return entry.make(freshId(), random);
  }
  return (INVALID[0] as (typeof INVALID)[number]).make(freshId(), random);
}

/** Sends one call and checks its status (one of `expected`) and its conformance. */
async function exchange(
  agent: Agent,
  port: number,
  kind: string,
  call: HttpCall,
  expected: readonly number[],
): Promise<HttpAnswer | undefined> {
  counts.requests++;
  bump(counts.byKind, kind);
  let answer: HttpAnswer;
  try {
    answer = await send(agent, port, call);
  } catch (error) {
    counts.networkErrors++;
    problem(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  bump(counts.byStatus, answer.status);
  if (answer.status >= 500) counts.serverErrors++;
  if (!expected.includes(answer.status)) {
    counts.unexpected++;
    problem(
      `${kind}: ${call.method} ${call.path} answered ${answer.status}, expected ${expected.join(' or ')}: ${answer.text.slice(0, 200)}`,
    );
  }
  const violation = await openApiProblem(call.method, call.path, answer);
  if (violation !== undefined) {
    counts.openApiViolations++;
    problem(`${kind}: ${violation}`);
  }
  return answer;
}

function sameBody(answer: HttpAnswer, plant: Plant): boolean {
  try {
    assert.deepStrictEqual(
      JSON.parse(answer.text),
      plant.tag === undefined ? { name: plant.name } : { ...plant },
    );
    return true;
  } catch {
    return false;
  }
}

function remember(id: bigint, plant: Plant): void {
  stored.set(id, plant);
  storedIds.push(id);
}

// ---------------------------------------------------------------------------------------------
// The load

async function worker(port: number, agent: Agent, random: () => number, until: number) {
  while (Date.now() < until) {
    const roll = random();
    if (roll < 0.45 || storedIds.length === 0) {
      const id = freshId();
      const plant = randomPlant(random);
      const answer = await exchange(
        agent,
        port,
        'create',
        createCall(plantJson(spell(id, random), plant)),
        [200],
      );
      if (answer?.status === 200) {
        if (sameBody(answer, plant)) remember(id, plant);
        else {
          counts.unexpected++;
          problem(`create ${id}: answered ${answer.text}, sent ${JSON.stringify(plant)}`);
        }
      } else refusedIds.add(id);
    } else if (roll < 0.65) {
      const id = pick(random, storedIds);
      const plant = stored.get(id) as Plant;
      const answer = await exchange(
        agent,
        port,
        'replay',
        createCall(plantJson(spell(id, random), plant)),
        [200],
      );
      if (answer?.status === 200 && !sameBody(answer, plant)) {
        counts.unexpected++;
        problem(`replay ${id}: answered ${answer.text}`);
      }
    } else if (roll < 0.75) {
      const id = pick(random, storedIds);
      const plant = stored.get(id) as Plant;
      const other = { ...plant, name: `${plant.name} (another)` };
      await exchange(
        agent,
        port,
        'conflict',
        createCall(plantJson(spell(id, random), other)),
        [409],
      );
    } else {
      const invalid = pickInvalid(random);
      await exchange(agent, port, `invalid: ${invalid.what}`, invalid.call, [invalid.status]);
      if (invalid.id !== undefined) refusedIds.add(invalid.id);
    }
  }
}

/** Same-id races: `width` creates of one fresh id at once, each on its own connection. */
async function racer(port: number, width: number, random: () => number, until: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: width });
  try {
    while (Date.now() < until) {
      counts.races++;
      const id = freshId();
      const identical = random() < 0.25;
      const first = randomPlant(random);
      const plants = Array.from({ length: width }, (_, i) =>
        identical ? first : { ...first, name: `${first.name} #${i}` },
      );
      const answers = await Promise.all(
        plants.map((plant) =>
          exchange(
            agent,
            port,
            'race',
            createCall(plantJson(spell(id, random), plant)),
            [200, 409],
          ),
        ),
      );
      const winners = answers.flatMap((answer, i) => (answer?.status === 200 ? [i] : []));
      const expectedWinners = identical ? width : 1;
      if (answers.every((answer) => answer !== undefined) && winners.length !== expectedWinners) {
        counts.unexpected++;
        problem(`race ${id}: ${winners.length} creates answered 200, expected ${expectedWinners}`);
      }
      const winner = winners[0];
      if (winner !== undefined) remember(id, plants[winner] as Plant);
      else if (answers.every((answer) => answer !== undefined)) refusedIds.add(id);
    }
  } finally {
    agent.destroy();
  }
}

async function load(port: number, seconds: number, seed: number): Promise<number> {
  const started = Date.now();
  const until = started + seconds * 1000;
  const agent = new Agent({ keepAlive: true, maxSockets: flags.connections });
  try {
    await Promise.all([
      ...Array.from({ length: flags.connections }, (_, i) =>
        worker(port, agent, seededRandom(seed + i), until),
      ),
      ...Array.from({ length: flags.racers }, (_, i) =>
        racer(port, flags['race-width'], seededRandom(seed + 1000 + i), until),
      ),
    ]);
  } finally {
    agent.destroy();
  }
  return (Date.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// The proof: what is stored is exactly what was answered 200

interface Verdict {
  storedExactly: number;
  refusedFree: number;
  refusedTaken: number;
  lost: number;
}

async function verify(port: number): Promise<Verdict> {
  const verdict: Verdict = { storedExactly: 0, refusedFree: 0, refusedTaken: 0, lost: 0 };
  const agent = new Agent({ keepAlive: true, maxSockets: flags.connections });
  const jobs: (() => Promise<void>)[] = [];
  for (const [id, plant] of stored) {
    jobs.push(async () => {
      // A different plant conflicts: the id is taken. Then the plant itself replays: it is equal.
      const other = { ...plant, name: `${plant.name} (check)` };
      const conflict = await exchange(
        agent,
        port,
        'verify',
        createCall(plantJson(`${id}`, other)),
        [409],
      );
      const replay = await exchange(
        agent,
        port,
        'verify',
        createCall(plantJson(`${id}`, plant)),
        [200],
      );
      if (conflict?.status === 409 && replay?.status === 200 && sameBody(replay, plant)) {
        verdict.storedExactly++;
      } else {
        verdict.lost++;
        problem(`plant ${id} is not stored as answered: ${JSON.stringify(plant)}`);
      }
    });
  }
  for (const id of refusedIds) {
    if (stored.has(id)) continue;
    jobs.push(async () => {
      // Never sent before: a 200 means the id was free (it is stored from now on).
      const probe = { name: `probe ${id}` };
      const answer = await exchange(
        agent,
        port,
        'verify',
        createCall(plantJson(`${id}`, probe)),
        [200],
      );
      if (answer?.status === 200) {
        verdict.refusedFree++;
        remember(id, probe);
      } else {
        verdict.refusedTaken++;
        problem(`id ${id} was refused but is taken`);
      }
    });
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: flags.connections }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
    }),
  );
  agent.destroy();
  return verdict;
}

/** In PostgreSQL mode: the table, read back, is exactly the plants answered 200. */
async function compareTable(
  pool: { query(sql: string): Promise<{ rows: Record<string, unknown>[] }> },
  schema: string,
): Promise<number> {
  const { rows } = await pool.query(`SELECT id::text AS id, name, tag FROM "${schema}".plants`);
  let mismatches = 0;
  const seen = new Set<bigint>();
  for (const row of rows) {
    const id = BigInt(row.id as string);
    seen.add(id);
    const plant = stored.get(id);
    const tag = row.tag === null ? undefined : (row.tag as string);
    if (plant === undefined || plant.name !== row.name || plant.tag !== tag) {
      mismatches++;
      problem(
        `row ${id} ${JSON.stringify(row)} is not what was answered: ${JSON.stringify(plant)}`,
      );
    }
  }
  for (const id of stored.keys()) {
    if (!seen.has(id)) {
      mismatches++;
      problem(`plant ${id} was answered 200 but has no row`);
    }
  }
  if (rows.length !== stored.size)
    problem(`${rows.length} rows, ${stored.size} plants answered 200`);
  return mismatches;
}

// ---------------------------------------------------------------------------------------------
// The server, its memory, and the run

/** The child's resident set and its peak, from `/proc/<pid>/status` (Linux). */
function residentMemory(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

async function waitForStderr(
  child: Child,
  pattern: RegExp,
  what: string,
): Promise<RegExpMatchArray> {
  for (let i = 0; i < 300; i++) {
    const match = pattern.exec(child.stderr());
    if (match !== null) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${what} on the server's stderr: ${child.stderr()}`);
}

async function main(): Promise<number> {
  const seed = flags.seed >>> 0;
  let child: Child | undefined;
  let inspector: Inspector | undefined;
  let admin: import('pg').Pool | undefined;
  let schema: string | undefined;
  const stop = (): void => {
    child?.kill();
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('PLANT_STORE_')) delete env[name];
    for (const name of ['NODE_OPTIONS', 'NODE_TEST_CONTEXT', 'DATABASE_URL']) delete env[name];
    Object.assign(env, { PORT: '0', HOST: '127.0.0.1', PLANT_STORE_TOKENS: TOKEN });
    if (DATABASE_URL !== undefined) {
      const pg = (await import('pg')).default;
      admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
      schema = `plant_store_soak_${process.pid}_${Date.now()}`;
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const url = new URL(DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      env.DATABASE_URL = url.href;
    }
    child = spawnChild(
      process.execPath,
      ['--inspect=127.0.0.1:0', '--import', 'tsx', 'lib/cli/main.ts'],
      env,
      ROOT,
    );
    const [, , port] = await child.line(
      /^plant-store listening on (http:\/\/127\.0\.0\.1:(\d+))$/,
      'the readiness line',
    );
    const [wsUrl] = await waitForStderr(child, /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/, 'inspector URL');
    inspector = await connectInspector(wsUrl);
    const pid = child.process.pid as number;
    const serverPort = Number(port);
    process.stdout.write(
      `soak: ${flags.duration} s on ${serverPort} (pid ${pid}), ${flags.connections} connections + ${flags.racers} racers x ${flags['race-width']}, store ${schema === undefined ? 'memory' : `postgresql schema ${schema}`}, seed ${seed}\n`,
    );

    // Warm-up: let the JIT, pools and caches settle before the memory baseline.
    await load(serverPort, flags.warmup, seed ^ 0x5eed);
    const heapStart = await heapAfterGc(inspector);
    const rssStart = residentMemory(pid);
    const plantsAtStart = stored.size;
    const requestsAtStart = counts.requests;

    const rssSamples: number[] = [];
    const sampler = setInterval(() => {
      const memory = residentMemory(pid);
      if (memory !== undefined) rssSamples.push(memory.rss);
    }, 1000);
    const seconds = await load(serverPort, flags.duration, seed);
    clearInterval(sampler);
    const loadRequests = counts.requests - requestsAtStart;
    const answered200 = stored.size;

    const verdict = await verify(serverPort);
    const mismatches =
      admin !== undefined && schema !== undefined ? await compareTable(admin, schema) : 0;

    const heapEnd = await heapAfterGc(inspector);
    const rssEnd = residentMemory(pid);
    const plantsInHeap = schema === undefined ? stored.size - plantsAtStart : 0;
    const heapBound = flags['heap-bound-mib'] * 1048576 + flags['heap-per-plant'] * plantsInHeap;
    const heapGrowth = heapEnd - heapStart;

    await inspector.close();
    inspector = undefined;
    child.process.kill('SIGTERM');
    const exitCode = await Promise.race([
      child.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000)),
    ]);

    const failures = [
      counts.unexpected > 0 && `${counts.unexpected} unexpected answers`,
      counts.serverErrors > 0 && `${counts.serverErrors} 5xx answers`,
      counts.networkErrors > 0 && `${counts.networkErrors} network errors`,
      counts.openApiViolations > 0 &&
        `${counts.openApiViolations} answers break the OpenAPI document`,
      verdict.lost > 0 && `${verdict.lost} plants lost or altered`,
      verdict.refusedTaken > 0 && `${verdict.refusedTaken} refused ids were stored`,
      mismatches > 0 && `${mismatches} rows differ from what was answered`,
      heapGrowth > heapBound &&
        `the heap grew ${mib(heapGrowth)}, over the bound ${mib(heapBound)}`,
      exitCode !== 0 && `the server exited with ${exitCode} on SIGTERM`,
    ].filter((failure): failure is string => typeof failure === 'string');

    const statuses = [...counts.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`);
    printTable('soak summary', [
      [
        'store',
        schema === undefined ? 'memory (standalone server)' : `postgresql (schema ${schema})`,
      ],
      ['seed', seed],
      [
        'load',
        `${seconds.toFixed(1)} s, ${flags.connections} keep-alive connections + ${flags.racers} racers x ${flags['race-width']}`,
      ],
      ['requests under load', `${loadRequests} (${Math.round(loadRequests / seconds)}/s)`],
      ['requests in all', `${counts.requests} (warm-up and proof included)`],
      ...[...counts.byKind]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([kind, n]): [string, number] => [`  ${kind}`, n]),
      ['statuses', statuses.join(', ')],
      ['same-id races', counts.races],
      ['unexpected answers', counts.unexpected],
      ['5xx answers', counts.serverErrors],
      ['network errors', counts.networkErrors],
      ['OpenAPI violations', counts.openApiViolations],
      ['plants answered 200', answered200],
      ['stored exactly as answered', verdict.storedExactly],
      ['refused ids proven free', verdict.refusedFree],
      ['rows differing (PostgreSQL)', schema === undefined ? 'n/a' : mismatches],
      ['plants lost or altered', verdict.lost],
      ['heap after GC: start, end', `${mib(heapStart)}, ${mib(heapEnd)}`],
      [
        'heap growth (bound)',
        `${mib(heapGrowth)} (${mib(heapBound)}: ${flags['heap-bound-mib']} MiB + ${flags['heap-per-plant']} B x ${plantsInHeap} plants held)`,
      ],
      [
        'RSS: start, peak, end',
        `${mib(rssStart?.rss ?? 0)}, ${mib(Math.max(...rssSamples, rssEnd?.rss ?? 0))}, ${mib(rssEnd?.rss ?? 0)}`,
      ],
      ['server exit on SIGTERM', String(exitCode)],
      ['verdict', failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`],
    ]);
    if (problems.length > 0)
      process.stdout.write(`\nfirst problems:\n  ${problems.join('\n  ')}\n`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await inspector?.close();
    child?.kill();
    if (admin !== undefined) {
      if (schema !== undefined) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
