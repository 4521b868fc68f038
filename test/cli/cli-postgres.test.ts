import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import {
  eachFewAtATime,
  exitsWithOneLine,
  postPlant,
  READY,
  startCli,
} from '../support/cli-helpers.ts';
import { type Child, delay, withDeadline } from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

// The standalone server runs as a child process, so it needs a database other processes can
// reach: a real PostgreSQL server. PGlite lives inside one process and cannot be shared.
const DATABASE_URL = process.env.DATABASE_URL;
const SKIP_NO_SERVER =
  DATABASE_URL === undefined || DATABASE_URL === ''
    ? 'DATABASE_URL is not set: these tests need a PostgreSQL server that the CLI child processes can reach (PGlite cannot be shared across processes); .ci/run sets it'
    : false;
const TOKEN = 'cli-postgres-token';
const HIDE_PACKAGES = new URL('../support/hide-packages.mjs', import.meta.url).href;

describe('plant-store CLI with DATABASE_URL', () => {
  const children: Child[] = [];
  const schemas: string[] = [];
  const proxies: DatabaseProxy[] = [];
  let admin: pg.Pool | undefined;
  after(async () => {
    for (const child of children) child.kill();
    for (const proxy of proxies) await proxy.close();
    if (admin !== undefined) {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });

  /** A fresh schema for one test, so runs and tests never share a table. */
  async function freshSchema(): Promise<string> {
    admin ??= new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const schema = `plant_store_cli_${process.pid}_${Date.now()}_${schemas.length}`;
    schemas.push(schema);
    await admin.query(`CREATE SCHEMA "${schema}"`);
    return schema;
  }

  /** DATABASE_URL with the schema as the search_path, and optionally through a proxy port. */
  function urlFor(schema: string, port?: number): string {
    const url = new URL(DATABASE_URL as string);
    if (port !== undefined) {
      url.hostname = '127.0.0.1';
      url.port = String(port);
    }
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.href;
  }

  async function startServer(
    databaseUrl: string,
    env: Record<string, string> = {},
  ): Promise<{ child: Child; url: string }> {
    const child = startCli(
      { PORT: '0', PLANT_STORE_TOKENS: TOKEN, DATABASE_URL: databaseUrl, ...env },
      children,
    );
    const [, url] = await child.line(READY, 'the readiness line');
    return { child, url: url as string };
  }

  async function stop(child: Child): Promise<void> {
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM', 15_000), 0);
  }

  async function create(url: string, plant: object, deadlineMs?: number) {
    const response = await postPlant(url, TOKEN, plant, deadlineMs);
    return { status: response.status, body: await assertMatchesOpenApi(response) };
  }

  it('exits 1 with one short line, and nothing listens, when the database is unreachable at start', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
      },
      children,
    );
    const stderr = await exitsWithOneLine(child, 1, 'an unreachable database');
    assert.match(stderr, /^plant-store: cannot prepare the database: [^\n]*ECONNREFUSED[^\n]*\n$/);
  });

  it(
    'exits 1 with one line naming the column, and nothing listens, when the plants table cannot hold plants',
    { skip: SKIP_NO_SERVER },
    async () => {
      const schema = await freshSchema();
      await (admin as pg.Pool).query(
        `CREATE TABLE "${schema}".plants (id integer PRIMARY KEY, name varchar(10) NOT NULL, tag text)`,
      );
      const child = startCli(
        { PORT: '0', PLANT_STORE_TOKENS: TOKEN, DATABASE_URL: urlFor(schema) },
        children,
      );
      const stderr = await exitsWithOneLine(child, 1, 'a table that cannot hold plants');
      assert.equal(
        stderr,
        'plant-store: cannot prepare the database: plant-store/postgres: the table "plants" cannot hold plants: column id is integer; it must be bigint (int8); column name is character varying(10); it must be text, without a length limit\n',
      );
    },
  );

  it('exits 2 with one line that does not echo the URL when DATABASE_URL is not a postgres URL', async () => {
    const secret = 's3cr3t-password';
    const cases = ['', 'not a url', `mysql://root:${secret}@127.0.0.1/test`, 'http://127.0.0.1/'];
    await eachFewAtATime(cases, async (value) => {
      const child = startCli({ PORT: '0', DATABASE_URL: value }, children);
      const stderr = await exitsWithOneLine(child, 2, `DATABASE_URL=${JSON.stringify(value)}`);
      assert.equal(
        stderr,
        'plant-store: DATABASE_URL must be a postgres:// or postgresql:// URL\n',
      );
    });
  });

  it('exits 1 with one line naming pg when DATABASE_URL is set and pg is not installed', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
        TEST_HIDE_PACKAGES: 'pg',
      },
      children,
      ['--import', HIDE_PACKAGES],
    );
    const stderr = await exitsWithOneLine(child, 1, 'pg hidden');
    assert.match(stderr, /^plant-store: DATABASE_URL needs the "pg" package[^\n]*npm install pg/);
  });

  for (const [how, env] of [
    ['its statements prepared', {}],
    ['PLANT_STORE_PG_PREPARE=false', { PLANT_STORE_PG_PREPARE: 'false' }],
  ] as const) {
    it(
      `stores creates in PostgreSQL, exact int64 ids included, when DATABASE_URL is set (${how})`,
      {
        skip: SKIP_NO_SERVER,
      },
      async () => {
        const schema = await freshSchema();
        const { child, url } = await startServer(urlFor(schema), env);
        const max = '9223372036854775807';
        const min = '-9223372036854775808';
        for (const [id, plant] of [
          [max, { name: 'Monstera', tag: 'aroid' }],
          [min, { name: 'Fern' }],
        ] as const) {
          const response = await postPlant(
            url,
            TOKEN,
            `{"id": ${id}, ${JSON.stringify(plant).slice(1)}`,
          );
          assert.equal(response.status, 200);
          assert.deepEqual(await assertMatchesOpenApi(response), plant);
        }
        const { rows } = await (admin as pg.Pool).query(
          `SELECT id::text AS id, name, tag FROM "${schema}".plants ORDER BY id`,
        );
        assert.deepEqual(rows, [
          { id: min, name: 'Fern', tag: null },
          { id: max, name: 'Monstera', tag: 'aroid' },
        ]);
        const conflict = await postPlant(url, TOKEN, `{"id": ${max}, "name": "Other"}`);
        assert.equal(conflict.status, 409);
        await assertMatchesOpenApi(conflict);
        await stop(child);
      },
    );
  }

  it(
    'keeps a plant across a restart when DATABASE_URL is set',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const first = await startServer(urlFor(schema));
      assert.deepEqual(await create(first.url, { id: 7, name: 'Cactus', tag: 'dry' }), {
        status: 200,
        body: { name: 'Cactus', tag: 'dry' },
      });
      await stop(first.child);

      const second = await startServer(urlFor(schema));
      // A replay is 200 and a different content 409: only a stored plant can tell them apart.
      assert.deepEqual(await create(second.url, { id: 7, name: 'Cactus', tag: 'dry' }), {
        status: 200,
        body: { name: 'Cactus', tag: 'dry' },
      });
      assert.equal((await create(second.url, { id: 7, name: 'Cactus' })).status, 409);
      await stop(second.child);
    },
  );

  it(
    'keeps plants in the table PLANT_STORE_TABLE names, quoted as given, and makes no plants table',
    { skip: SKIP_NO_SERVER },
    async () => {
      const schema = await freshSchema();
      // Quoted, so case, spaces, quotes and SQL are all part of the name, never run.
      const table = 'Garden "Plants"; DROP TABLE x';
      const quoted = `"${schema}"."${table.replaceAll('"', '""')}"`;
      const first = await startServer(urlFor(schema), { PLANT_STORE_TABLE: table });
      assert.equal((await create(first.url, { id: 7, name: 'Cactus' })).status, 200);
      await stop(first.child);
      // The second start finds the table and checks it: the plant is still there.
      const second = await startServer(urlFor(schema), { PLANT_STORE_TABLE: table });
      assert.equal((await create(second.url, { id: 7, name: 'Fern' })).status, 409);
      await stop(second.child);
      const { rows } = await (admin as pg.Pool).query(
        `SELECT id::text AS id, name, to_regclass('"${schema}".plants') AS plants FROM ${quoted}`,
      );
      assert.deepEqual(rows, [{ id: '7', name: 'Cactus', plants: null }]);
    },
  );

  it(
    'exits 1 with one line naming the table and the column when the table PLANT_STORE_TABLE names cannot hold plants',
    { skip: SKIP_NO_SERVER },
    async () => {
      const schema = await freshSchema();
      await (admin as pg.Pool).query(
        `CREATE TABLE "${schema}"."Herbs" (id integer PRIMARY KEY, name text NOT NULL, tag text)`,
      );
      const child = startCli(
        {
          PORT: '0',
          PLANT_STORE_TOKENS: TOKEN,
          DATABASE_URL: urlFor(schema),
          PLANT_STORE_TABLE: 'Herbs',
        },
        children,
      );
      const stderr = await exitsWithOneLine(child, 1, 'a named table that cannot hold plants');
      assert.equal(
        stderr,
        'plant-store: cannot prepare the database: plant-store/postgres: the table "Herbs" cannot hold plants: column id is integer; it must be bigint (int8)\n',
      );
    },
  );

  it('exits 2 with one line, before it connects, when PLANT_STORE_TABLE is no name PostgreSQL keeps whole or DATABASE_URL is unset', async () => {
    // The database is unreachable: reaching for it would exit 1, not 2.
    const database = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' };
    const cases: Array<[Record<string, string>, string]> = [
      ...['', 'x'.repeat(64), '\u00e9'.repeat(32)].map(
        (table): [Record<string, string>, string] => [
          { ...database, PLANT_STORE_TABLE: table },
          'PLANT_STORE_TABLE must be a non-empty identifier of at most 63 bytes without U+0000',
        ],
      ),
      [{ PLANT_STORE_TABLE: 'plants' }, 'PLANT_STORE_TABLE needs DATABASE_URL'],
    ];
    await eachFewAtATime(cases, async ([env, message]) => {
      const child = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN, ...env }, children);
      const stderr = await exitsWithOneLine(child, 2, JSON.stringify(env));
      assert.equal(stderr, `plant-store: ${message}\n`);
    });
  });

  it(
    'lets exactly one of 50 concurrent creates of one id win across two servers on one database',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const [a, b] = await Promise.all([startServer(urlFor(schema)), startServer(urlFor(schema))]);
      const servers = [a.url, b.url];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          create(servers[i % 2] as string, { id: 42, name: `contender ${i}` }, 15_000),
        ),
      );
      const winners = results.filter((result) => result.status === 200);
      assert.equal(winners.length, 1, JSON.stringify(results.map((result) => result.status)));
      assert.equal(results.filter((result) => result.status === 409).length, 49);
      const winner = winners[0]?.body as { name: string };
      for (const url of servers) {
        assert.deepEqual(await create(url, { id: 42, name: winner.name }), {
          status: 200,
          body: { name: winner.name },
        });
      }
      const { rows } = await (admin as pg.Pool).query(`SELECT name FROM "${schema}".plants`);
      assert.deepEqual(rows, [{ name: winner.name }]);
      await Promise.all([stop(a.child), stop(b.child)]);
    },
  );

  it(
    'answers Error bodies without crashing while the database is lost, and resumes when it is back',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const proxy = await startProxy(new URL(DATABASE_URL as string));
      proxies.push(proxy);
      const { child, url } = await startServer(urlFor(schema, proxy.port));
      assert.equal((await create(url, { id: 1, name: 'before' })).status, 200);

      proxy.cut();
      for (let i = 0; i < 3; i++) {
        const { status } = await create(url, { id: 2, name: 'during' }, 15_000);
        assert.equal(status, 503, 'the store is unavailable: a retry is safe');
      }
      assert.equal(child.process.exitCode, null, 'the server is still running');

      proxy.restore();
      await resumes(url, { id: 2, name: 'during' });
      assert.deepEqual(await create(url, { id: 1, name: 'before' }), {
        status: 200,
        body: { name: 'before' },
      });
      assert.doesNotMatch(child.stderr(), /Uncaught|unhandled/i);
      await stop(child);
    },
  );

  it(
    'answers 503 before the store deadline when the database stops answering, and resumes',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const proxy = await startProxy(new URL(DATABASE_URL as string));
      proxies.push(proxy);
      const { child, url } = await startServer(urlFor(schema, proxy.port));
      assert.equal((await create(url, { id: 1, name: 'before' })).status, 200);

      // Connections stay open but nothing comes back: the pool's query_timeout (8 s) ends the
      // wait, before the store's 10 s deadline, as an unavailable store.
      proxy.stall();
      const started = Date.now();
      assert.deepEqual(await create(url, { id: 2, name: 'during' }, 15_000), {
        status: 503,
        body: {
          error: 503,
          message: 'the store is unavailable for now; retrying the request is safe',
        },
      });
      assert.ok(Date.now() - started < 10_000, 'answered before the store deadline');
      assert.equal(child.process.exitCode, null, 'the server is still running');

      proxy.restore();
      await resumes(url, { id: 2, name: 'during' });
      await stop(child);
    },
  );

  it(
    'holds creates back to PLANT_STORE_PG_MAX_IN_FLIGHT statements in flight, then answers the waiting ones',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const child = startCli(
        {
          PORT: '0',
          PLANT_STORE_TOKENS: TOKEN,
          DATABASE_URL: urlFor(schema),
          PLANT_STORE_PG_MAX_IN_FLIGHT: '1',
          PLANT_STORE_PG_MAX_BATCH: '2',
        },
        children,
      );
      const [, url] = await child.line(READY, 'the readiness line');
      // An open transaction holds id 1: the create of it waits on the row lock, in flight.
      const holder = new pg.Client({ connectionString: DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO "${schema}".plants (id, name) VALUES (1, 'held')`);
        const blocked = create(url as string, { id: 1, name: 'Monstera' }, 15_000);
        await delay(300);
        // One statement in flight is the limit: the creates of free ids wait behind it.
        const waiting = [2, 3, 4].map((id) => create(url as string, { id, name: 'Fern' }, 15_000));
        const early = await Promise.race([
          Promise.all(waiting).then(() => 'answered'),
          delay(500).then(() => 'waiting'),
        ]);
        assert.equal(early, 'waiting');
        await holder.query('ROLLBACK');
        assert.deepEqual((await blocked).body, { name: 'Monstera' });
        for (const answer of await Promise.all(waiting)) assert.equal(answer.status, 200);
      } finally {
        await holder.end();
      }
      await stop(child);
    },
  );

  it(
    'is ready only while the database answers, names its storage without the password, and exits within a second of SIGTERM when idle',
    {
      skip: SKIP_NO_SERVER,
    },
    async () => {
      const schema = await freshSchema();
      const proxy = await startProxy(new URL(DATABASE_URL as string));
      proxies.push(proxy);
      const databaseUrl = new URL(urlFor(schema, proxy.port));
      databaseUrl.password = 'pg-secret-word';
      const child = startCli(
        {
          PORT: '0',
          PLANT_STORE_TOKENS: TOKEN,
          DATABASE_URL: databaseUrl.href,
          PLANT_STORE_ADMIN_PORT: '0',
          // No drain: the second timed below is the pool's to keep.
          PLANT_STORE_DRAIN_MS: '0',
          PLANT_STORE_PG_POOL_MAX: '3',
        },
        children,
      );
      const [, url] = await child.line(READY, 'the readiness line');
      const started = JSON.parse(
        child
          .stdout()
          .split('\n')
          .find((line) => line.includes('"msg":"started"')) ?? '{}',
      ) as { storage?: string; admin?: string };
      assert.match(started.storage ?? '', /^PostgreSQL \(127\.0\.0\.1:\d+\/test\)$/);
      assert.doesNotMatch(child.stdout(), /pg-secret-word/);
      assert.doesNotMatch(child.stdout(), /lost at exit/, 'no memory warning with a database');
      const admin = started.admin as string;
      assert.equal((await create(url as string, { id: 1, name: 'a' })).status, 200);

      const readiness = async () => {
        const response = await fetch(`${admin}/readyz`);
        return { status: response.status, body: await response.json() };
      };
      assert.deepEqual(await readiness(), {
        status: 200,
        body: { status: 'ready', checks: { shutdown: true, storage: true } },
      });
      const metrics = await (await fetch(`${admin}/metrics`)).text();
      assert.match(metrics, /^plant_store_pg_pool_connections\{state="total"\} [1-3]$/m);

      proxy.cut();
      // A look at the database answers /readyz for up to a second: then it sees the cut.
      const notReady = await withDeadline(
        (async () => {
          for (;;) {
            const answer = await readiness();
            if (answer.status !== 200) return answer;
            await delay(100);
          }
        })(),
        'not ready once the database is cut',
        5_000,
      );
      // Which check failed, never the database's error text (the admin port needs no
      // credentials): the log has it.
      assert.deepEqual(notReady, {
        status: 503,
        body: { status: 'not ready', checks: { shutdown: true, storage: false } },
      });
      await withDeadline(
        (async () => {
          while (!/"level":"error","msg":"unexpected error"/.test(child.stdout())) await delay(20);
        })(),
        'the database error in the log',
      );
      proxy.restore();
      await withDeadline(
        (async () => {
          while ((await readiness()).status !== 200) await delay(100);
        })(),
        'ready again once the database is back',
        10_000,
      );

      // An idle pool does not keep the process alive past the stop.
      const stopAt = Date.now();
      child.process.kill('SIGTERM');
      assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
      assert.ok(Date.now() - stopAt < 1500, `exited ${Date.now() - stopAt} ms after SIGTERM`);
    },
  );

  /** Creates until one succeeds, each answer an Error body; fails past the deadline. */
  async function resumes(url: string, plant: object): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { status, body } = await create(url, plant, 15_000);
      if (status === 200) {
        assert.deepEqual(body, withoutId(plant));
        return;
      }
      assert.equal(status, 503, 'while resuming');
      assert.ok(Date.now() < deadline, 'service did not resume within 15 s');
      await delay(200);
    }
  }
});

function withoutId(plant: object): object {
  const { id: _id, ...rest } = plant as { id?: unknown };
  return rest;
}

/** A TCP proxy to the database that a test can cut, stall and restore. */
interface DatabaseProxy {
  readonly port: number;
  /** Closes every connection, and closes each new one at once, until `restore`. */
  cut(): void;
  /** Keeps connections open but forwards nothing either way, until `restore`. */
  stall(): void;
  /** Forwards again; connections cut or stalled before are closed for good. */
  restore(): void;
  close(): Promise<void>;
}

async function startProxy(target: URL): Promise<DatabaseProxy> {
  const upstreamPort = Number(target.port || 5432);
  const upstreamHost = target.hostname || '127.0.0.1';
  let mode: 'open' | 'cut' | 'stall' = 'open';
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  const server: Server = createServer((client) => {
    client.on('error', () => {});
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    pairs.add(pair);
    client.once('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode === 'stall') return;
    const upstream = connect(upstreamPort, upstreamHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.once('close', () => client.destroy());
    // Forward by hand, so a stall can drop data in both directions.
    client.on('data', (chunk) => {
      if (mode === 'open') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'open') client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = (): void => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  };
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      mode = 'cut';
      destroyAll();
    },
    stall() {
      mode = 'stall';
    },
    restore() {
      // A stalled connection lost bytes mid-protocol: it can never be used again.
      if (mode === 'stall') destroyAll();
      mode = 'open';
    },
    close() {
      destroyAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
