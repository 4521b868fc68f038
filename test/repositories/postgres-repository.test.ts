import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { NewPlant, PlantRepository } from '../../lib/index.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import {
  createPostgresRepository,
  ensurePlantTable,
  type PostgresClient,
  type PostgresTableOptions,
} from '../../lib/postgres.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';

// PGlite (embedded PostgreSQL) runs when its package is installed (`npm ci --prefix
// test/repositories`: kept out of the main install, 27 MB), so a machine without a server can
// still test the SQL; a real server runs as well when DATABASE_URL is set. CI does both.
const DATABASE_URL = process.env.DATABASE_URL;

/** What this suite uses of PGlite, typed here so the suite type-checks without its package. */
interface PGliteDatabase extends PostgresClient {
  readonly waitReady: Promise<void>;
  close(): Promise<void>;
}

/** PGlite's constructor from this folder's own install, or `undefined` when it is not there. */
async function loadPGlite(): Promise<(new () => PGliteDatabase) | undefined> {
  // A specifier in a variable: resolved at run time (test/repositories/node_modules), not by tsc.
  const specifier: string = '@electric-sql/pglite';
  try {
    const module = (await import(specifier)) as { PGlite: new () => PGliteDatabase };
    return module.PGlite;
  } catch {
    return undefined;
  }
}
const PGlite = await loadPGlite();

interface Backend {
  readonly name: string;
  /** The shared client of this file's run on the backend, connected on first use. */
  readonly client: () => Promise<PostgresClient>;
}

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers) await close();
});

function lazy<T>(connect: () => Promise<T>, close: (value: T) => Promise<void>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    if (promise === undefined) {
      promise = connect();
      const opened = promise;
      closers.push(async () => close(await opened));
    }
    return promise;
  };
}

const pglite = lazy(
  async () => {
    const db = new (PGlite as new () => PGliteDatabase)();
    await db.waitReady;
    return db;
  },
  (db) => db.close(),
);

/** A fresh pg Pool on the real server, closed when the file ends: a stand-in for one process. */
function serverPool(): () => Promise<pg.Pool> {
  return lazy(
    async () => new pg.Pool({ connectionString: DATABASE_URL, max: 10 }),
    (pool) => pool.end(),
  );
}

const backends: Backend[] = PGlite === undefined ? [] : [{ name: 'PGlite', client: pglite }];
const poolA = serverPool();
const poolB = serverPool();
if (DATABASE_URL !== undefined && DATABASE_URL !== '') {
  backends.push({ name: 'PostgreSQL server', client: poolA });
}

// Unique per run, so runs on one database never collide (CI and a developer, or two CI jobs).
const RUN = `${process.pid.toString(36)}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
let tables = 0;
function uniqueTableName(prefix = 'plant_store'): string {
  tables += 1;
  return `${prefix}_${RUN}_${tables}`;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function qualified(options: PostgresTableOptions): string {
  const table = quote(options.table ?? 'plants');
  return options.schema === undefined ? table : `${quote(options.schema)}.${table}`;
}

function signal(): AbortSignal {
  return new AbortController().signal;
}

/** A fresh table on the backend, ensured, and a repository over it; cleanup drops it. */
async function freshTable(client: PostgresClient, options: PostgresTableOptions = {}) {
  const table = { table: uniqueTableName(), ...options };
  const cleanup = async () => {
    await client.query(`DROP TABLE IF EXISTS ${qualified(table)}`, []);
  };
  try {
    await ensurePlantTable(client, table);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { table, repository: createPostgresRepository(client, table), cleanup };
}

/** One connection of the client (a pool's, checked out) and how to give it back. */
async function oneSession(
  client: PostgresClient,
): Promise<PostgresClient & { release: () => Promise<void> }> {
  if (client instanceof pg.Pool) {
    const connection = await client.connect();
    return {
      query: (text, values) => connection.query(text, values),
      release: async () => connection.release(),
    };
  }
  // PGlite is one session already.
  return { query: (text, values) => client.query(text, values), release: async () => {} };
}

/**
 * The client with its first statement held back until `release()`, so that the creates made
 * meanwhile wait and go together in the next statement; records every statement.
 */
function heldClient(client: PostgresClient) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const statements: Array<{ text: string; values: unknown[] }> = [];
  const held: PostgresClient = {
    async query(text: string, values: unknown[] = []) {
      statements.push({ text, values });
      if (statements.length === 1) await gate;
      return client.query(text, values);
    },
  };
  const inserts = () => statements.filter((statement) => statement.text.startsWith('INSERT'));
  return { client: held, statements, inserts, release };
}

/** The ids a create statement sent: one alone, or the array of a batch. */
function idsOf(values: unknown[]): unknown[] {
  return Array.isArray(values[0]) ? values[0] : [values[0]];
}

/** A client that records every call and answers from a script. */
function scriptedClient(answer: (text: string, values: unknown[], call: number) => unknown) {
  const calls: Array<{ text: string; values: unknown[] }> = [];
  const client: PostgresClient = {
    query(text: string, values: unknown[] = []) {
      calls.push({ text, values });
      return answer(text, values, calls.length) as Promise<{ rows: unknown[] }>;
    },
  };
  return { client, calls };
}

for (const backend of backends) {
  describe(`createPostgresRepository on ${backend.name}: the conformance kit`, () => {
    // The table each repository of the kit's checks writes, for the second instance over it.
    const tablesOf = new WeakMap<PlantRepository, PostgresTableOptions>();
    registerRepositoryConformance(
      it,
      async () => {
        const fresh = await freshTable(await backend.client());
        tablesOf.set(fresh.repository, fresh.table);
        return fresh;
      },
      backend.name === 'PGlite'
        ? {}
        : {
            // Another pool on the same table: a second process, as far as the server can tell.
            makeSecondInstance: async (first) =>
              createPostgresRepository(await poolB(), tablesOf.get(first)),
          },
    );
  });

  describe(`createPostgresRepository on ${backend.name}`, () => {
    it('stores ids as exact bigints when they are at the ends of the int64 range', async () => {
      const client = await backend.client();
      const { table, repository, cleanup } = await freshTable(client);
      try {
        const ids = [-9223372036854775808n, 9223372036854775807n, 9007199254740993n];
        for (const id of ids) await repository.create({ id, name: 'x' }, { signal: signal() });
        const { rows } = await client.query(
          `SELECT id, id::text AS text FROM ${qualified(table)} ORDER BY id`,
          [],
        );
        // pg hands int8 back as a string, PGlite as a bigint: BigInt takes both exactly.
        assert.deepStrictEqual(
          rows.map((row) => BigInt((row as { id: string | bigint }).id)),
          ids.toSorted((a, b) => (a < b ? -1 : 1)),
        );
        assert.deepStrictEqual(
          rows.map((row) => (row as { text: string }).text),
          ['-9223372036854775808', '9007199254740993', '9223372036854775807'],
        );
      } finally {
        await cleanup();
      }
    });

    it("stores NULL for an absent tag and '' for an empty one when both are created", async () => {
      const client = await backend.client();
      const { table, repository, cleanup } = await freshTable(client);
      try {
        await repository.create({ id: 1n, name: 'a' }, { signal: signal() });
        await repository.create({ id: 2n, name: 'a', tag: '' }, { signal: signal() });
        const { rows } = await client.query(
          `SELECT id::text AS id, tag IS NULL AS "isNull" FROM ${qualified(table)} ORDER BY id`,
          [],
        );
        assert.deepStrictEqual(rows, [
          { id: '1', isNull: true },
          { id: '2', isNull: false },
        ]);
      } finally {
        await cleanup();
      }
    });

    it('returns a plant without a tag when a row with a NULL tag was inserted by hand', async () => {
      const client = await backend.client();
      const { table, repository, cleanup } = await freshTable(client);
      try {
        await client.query(
          `INSERT INTO ${qualified(table)} (id, name, tag) VALUES (7, 'by hand', NULL)`,
          [],
        );
        const outcome = await repository.create({ id: 7n, name: 'by hand' }, { signal: signal() });
        assert.deepStrictEqual(outcome, { created: false, existing: { name: 'by hand' } });
      } finally {
        await cleanup();
      }
    });

    it('works and injects nothing when the table name holds quotes, spaces and SQL', async () => {
      const client = await backend.client();
      const canary = uniqueTableName('canary');
      await client.query(`CREATE TABLE ${quote(canary)} (x int)`, []);
      const weird = `p"; DROP TABLE ${quote(canary)}; --`;
      try {
        const { repository } = await freshTable(client, { table: weird });
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'a' }, { signal: signal() }),
          {
            created: true,
          },
        );
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'b' }, { signal: signal() }),
          {
            created: false,
            existing: { name: 'a' },
          },
        );
        const { rows } = await client.query(
          'SELECT table_name FROM information_schema.tables WHERE table_name = ANY($1::text[]) ORDER BY table_name',
          [[canary, weird]],
        );
        assert.deepStrictEqual(
          rows.map((row) => (row as { table_name: string }).table_name).sort(),
          [canary, weird].sort(),
        );
      } finally {
        await client.query(`DROP TABLE IF EXISTS ${quote(weird)}`, []);
        await client.query(`DROP TABLE IF EXISTS ${quote(canary)}`, []);
      }
    });

    it('puts the table in the given schema when schema is set', async () => {
      const client = await backend.client();
      const schema = `plant store "schema" ${RUN}`;
      await client.query(`CREATE SCHEMA ${quote(schema)}`, []);
      try {
        const { table, repository } = await freshTable(client, { schema });
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'a' }, { signal: signal() }),
          {
            created: true,
          },
        );
        const { rows } = await client.query(
          'SELECT table_schema FROM information_schema.tables WHERE table_name = $1',
          [table.table],
        );
        assert.deepStrictEqual(rows, [{ table_schema: schema }]);
      } finally {
        await client.query(`DROP SCHEMA ${quote(schema)} CASCADE`, []);
      }
    });

    it('inserts again when the row is deleted between the insert and the read', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        await client.query(`INSERT INTO ${qualified(table)} (id, name) VALUES (3, 'doomed')`, []);
        // Deletes the row right after the first insert found it, before the read runs.
        let deleted = false;
        const racing: PostgresClient = {
          async query(text, values) {
            const result = await client.query(text, values);
            if (!deleted && text.startsWith('INSERT') && result.rows.length === 0) {
              deleted = true;
              await client.query(`DELETE FROM ${qualified(table)} WHERE id = 3`, []);
            }
            return result;
          },
        };
        const repository = createPostgresRepository(racing, table);
        assert.deepStrictEqual(
          await repository.create({ id: 3n, name: 'new' }, { signal: signal() }),
          {
            created: true,
          },
        );
        assert.equal(deleted, true);
        const { rows } = await client.query(`SELECT name FROM ${qualified(table)}`, []);
        assert.deepStrictEqual(rows, [{ name: 'new' }]);
      } finally {
        await cleanup();
      }
    });

    it('sends the creates that arrive while a statement is in flight together in one statement', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const first = repository.create({ id: 1n, name: 'first' }, { signal: signal() });
        const rest = Array.from({ length: 20 }, (_, i) =>
          repository.create({ id: BigInt(100 + i), name: `${i}` }, { signal: signal() }),
        );
        assert.equal(held.statements.length, 1);
        held.release();
        assert.deepStrictEqual(
          await Promise.all([first, ...rest]),
          Array(21).fill({ created: true }),
        );
        assert.deepStrictEqual(
          held.statements.map((statement) => idsOf(statement.values).length),
          [1, 20],
        );
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM ${qualified(table)}`,
          [],
        );
        assert.deepStrictEqual(rows, [{ n: 21 }]);
      } finally {
        await cleanup();
      }
    });

    it('lets exactly one create of an id win when several of it share one batch', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const create = (plant: NewPlant) => repository.create(plant, { signal: signal() });
        const first = create({ id: 1n, name: 'hold' });
        const batch = [
          create({ id: 7n, name: 'Fern', tag: 'green' }),
          create({ id: 7n, name: 'Fern', tag: 'green' }),
          create({ id: 7n, name: 'Cactus' }),
          create({ id: 8n, name: 'Moss' }),
          create({ id: 8n, name: 'Moss' }),
        ];
        held.release();
        await first;
        assert.deepStrictEqual(await Promise.all(batch), [
          { created: true },
          { created: false, existing: { name: 'Fern', tag: 'green' } },
          { created: false, existing: { name: 'Fern', tag: 'green' } },
          { created: true },
          { created: false, existing: { name: 'Moss' } },
        ]);
        assert.equal(held.inserts().length, 2);
        const { rows } = await client.query(
          `SELECT id::text AS id, name, tag FROM ${qualified(table)} WHERE id > 1 ORDER BY id`,
          [],
        );
        assert.deepStrictEqual(rows, [
          { id: '7', name: 'Fern', tag: 'green' },
          { id: '8', name: 'Moss', tag: null },
        ]);
      } finally {
        await cleanup();
      }
    });

    it('answers stored, replay and conflict in one batch when some ids are taken', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        await client.query(
          `INSERT INTO ${qualified(table)} (id, name, tag) VALUES (5, 'Ivy', NULL), (6, 'Fern', 'x')`,
          [],
        );
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const create = (plant: NewPlant) => repository.create(plant, { signal: signal() });
        const first = create({ id: 1n, name: 'hold' });
        const batch = [
          create({ id: 5n, name: 'Ivy' }),
          create({ id: 6n, name: 'Other' }),
          create({ id: 9n, name: 'New' }),
        ];
        held.release();
        await first;
        assert.deepStrictEqual(await Promise.all(batch), [
          { created: false, existing: { name: 'Ivy' } },
          { created: false, existing: { name: 'Fern', tag: 'x' } },
          { created: true },
        ]);
        // The insert of the batch, then one primary-key read for both taken ids.
        assert.deepStrictEqual(
          held.statements
            .slice(1)
            .map((statement) => [statement.text.split(' ')[0], idsOf(statement.values)]),
          [
            ['INSERT', ['5', '6', '9']],
            ['SELECT', ['5', '6']],
          ],
        );
      } finally {
        await cleanup();
      }
    });

    it('fails only the bad row when one create of a batch cannot be stored', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const create = (plant: NewPlant) => repository.create(plant, { signal: signal() });
        const first = create({ id: 1n, name: 'hold' });
        // PostgreSQL text cannot hold U+0000: the whole batch statement fails on it.
        const outcomes = Promise.allSettled([
          create({ id: 2n, name: 'good' }),
          create({ id: 3n, name: 'bad\u0000row' }),
          create({ id: 4n, name: 'good too', tag: 't' }),
          create({ id: 2n, name: 'good' }),
        ]);
        held.release();
        await first;
        const [good, bad, goodToo, again] = await outcomes;
        assert.equal(bad?.status, 'rejected');
        assert.equal((bad as PromiseRejectedResult).reason.code, '22021');
        assert.deepStrictEqual(goodToo, { status: 'fulfilled', value: { created: true } });
        // The two creates of id 2 went on their own, at once: either may have won.
        assert.deepStrictEqual(
          [good, again]
            .map((outcome) => JSON.stringify((outcome as PromiseFulfilledResult<unknown>).value))
            .sort(),
          ['{"created":false,"existing":{"name":"good"}}', '{"created":true}'],
        );
        const { rows } = await client.query(
          `SELECT id::text AS id FROM ${qualified(table)} ORDER BY id`,
          [],
        );
        assert.deepStrictEqual(rows, [{ id: '1' }, { id: '2' }, { id: '4' }]);
      } finally {
        await cleanup();
      }
    });

    it('never sends a create whose signal aborts while it waits for a batch', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const first = repository.create({ id: 1n, name: 'hold' }, { signal: signal() });
        const controller = new AbortController();
        const reason = new Error('deadline');
        const late = repository.create({ id: 2n, name: 'late' }, { signal: controller.signal });
        const onTime = repository.create({ id: 3n, name: 'on time' }, { signal: signal() });
        controller.abort(reason);
        // Rejected at once, while the statement ahead of it is still held.
        await assert.rejects(late, (error) => error === reason);
        held.release();
        assert.deepStrictEqual(await Promise.all([first, onTime]), [
          { created: true },
          { created: true },
        ]);
        assert.deepStrictEqual(
          held.inserts().map((statement) => idsOf(statement.values)),
          [['1'], ['3']],
        );
        const { rows } = await client.query(
          `SELECT id::text AS id FROM ${qualified(table)} ORDER BY id`,
          [],
        );
        assert.deepStrictEqual(rows, [{ id: '1' }, { id: '3' }]);
      } finally {
        await cleanup();
      }
    });

    it('listens to the signal only of a create that waits for a batch', async (t) => {
      // A listener on an AbortSignal is the dearest part of a lone create's own work: the idle
      // case, one create at a time, must not pay it.
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const repository = createPostgresRepository(held.client, { ...table, maxInFlight: 1 });
        const alone = signal();
        const waiting = signal();
        const aloneListens = t.mock.method(alone, 'addEventListener');
        const waitingListens = t.mock.method(waiting, 'addEventListener');
        const first = repository.create({ id: 1n, name: 'alone' }, { signal: alone });
        const second = repository.create({ id: 2n, name: 'waits' }, { signal: waiting });
        held.release();
        assert.deepStrictEqual(await Promise.all([first, second]), [
          { created: true },
          { created: true },
        ]);
        assert.equal(aloneListens.mock.callCount(), 0, 'the create sent at once');
        assert.equal(waitingListens.mock.callCount(), 1, 'the create that waited');
      } finally {
        await cleanup();
      }
    });

    it("rejects with the driver's error when the table does not exist", async () => {
      const repository = createPostgresRepository(await backend.client(), {
        table: uniqueTableName('missing'),
      });
      await assert.rejects(repository.create({ id: 1n, name: 'a' }, { signal: signal() }), {
        code: '42P01',
      });
    });
  });

  describe(`ensurePlantTable on ${backend.name}`, () => {
    it('creates the table with the documented columns when it is missing', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const { rows } = await client.query(
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns
           WHERE table_name = $1 ORDER BY ordinal_position`,
          [table.table],
        );
        assert.deepStrictEqual(rows, [
          { column_name: 'id', data_type: 'bigint', is_nullable: 'NO' },
          { column_name: 'name', data_type: 'text', is_nullable: 'NO' },
          { column_name: 'tag', data_type: 'text', is_nullable: 'YES' },
        ]);
        const keys = await client.query(
          `SELECT tc.constraint_type, kcu.column_name FROM information_schema.table_constraints tc
           JOIN information_schema.key_column_usage kcu USING (constraint_schema, constraint_name)
           WHERE tc.table_name = $1`,
          [table.table],
        );
        assert.deepStrictEqual(keys.rows, [{ constraint_type: 'PRIMARY KEY', column_name: 'id' }]);
      } finally {
        await cleanup();
      }
    });

    it('keeps the table and its plants when it is called again', async () => {
      const client = await backend.client();
      const { table, repository, cleanup } = await freshTable(client);
      try {
        await repository.create({ id: 1n, name: 'kept' }, { signal: signal() });
        await ensurePlantTable(client, table);
        await ensurePlantTable(client, table);
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'x' }, { signal: signal() }),
          {
            created: false,
            existing: { name: 'kept' },
          },
        );
      } finally {
        await cleanup();
      }
    });

    it('succeeds every time when many calls race on a missing table', async () => {
      const clients = [await backend.client()];
      if (backend.name !== 'PGlite') clients.push(await poolB());
      const table = { table: uniqueTableName() };
      try {
        await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            ensurePlantTable(clients[i % clients.length] as PostgresClient, table),
          ),
        );
      } finally {
        await clients[0]?.query(`DROP TABLE IF EXISTS ${qualified(table)}`, []);
      }
    });

    for (const [title, columns, problem] of [
      [
        'id is an integer',
        'id integer PRIMARY KEY, name text NOT NULL, tag text',
        'column id is integer; it must be bigint (int8)',
      ],
      [
        'name has a length limit',
        'id bigint PRIMARY KEY, name varchar(10) NOT NULL, tag text',
        'column name is character varying(10); it must be text, without a length limit',
      ],
      [
        'name may be NULL',
        'id bigint PRIMARY KEY, name text, tag text',
        'column name must be NOT NULL',
      ],
      [
        'tag is NOT NULL',
        'id bigint PRIMARY KEY, name text NOT NULL, tag text NOT NULL',
        'column tag must allow NULL (a plant may have no tag)',
      ],
      [
        'has another NOT NULL column without a default',
        'id bigint PRIMARY KEY, name text NOT NULL, tag text, owner text NOT NULL',
        'column owner is NOT NULL without a default, so a create cannot fill it',
      ],
      [
        'has no primary key',
        'id bigint UNIQUE, name text NOT NULL, tag text',
        'column id must be the primary key, alone',
      ],
      [
        'has a primary key of two columns',
        'id bigint, name text NOT NULL, tag text, PRIMARY KEY (id, name)',
        'column id must be the primary key, alone',
      ],
      [
        'lacks the tag column',
        'id bigint PRIMARY KEY, name text NOT NULL',
        'column tag is missing',
      ],
    ] as const) {
      it(`rejects naming the column when an existing table's ${title}`, async () => {
        const client = await backend.client();
        const table = uniqueTableName();
        await client.query(`CREATE TABLE ${quote(table)} (${columns})`, []);
        try {
          await assert.rejects(ensurePlantTable(client, { table }), {
            message: `plant-store/postgres: the table ${quote(table)} cannot hold plants: ${problem}`,
          });
        } finally {
          await client.query(`DROP TABLE ${quote(table)}`, []);
        }
      });
    }

    it('accepts a table with more columns when they have defaults or allow NULL', async () => {
      const client = await backend.client();
      const table = uniqueTableName();
      await client.query(
        `CREATE TABLE ${quote(table)} (id int8 PRIMARY KEY, name varchar NOT NULL, tag text,
           created_at timestamptz NOT NULL DEFAULT now(), serial bigint GENERATED ALWAYS AS IDENTITY,
           note text)`,
        [],
      );
      try {
        await ensurePlantTable(client, { table });
        const repository = createPostgresRepository(client, { table });
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'a' }, { signal: signal() }),
          {
            created: true,
          },
        );
      } finally {
        await client.query(`DROP TABLE ${quote(table)}`, []);
      }
    });

    it('accepts the table sql/plants.sql creates, which is the README block', async () => {
      const sql = readFileSync(new URL('../../sql/plants.sql', import.meta.url), 'utf8');
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      const block = /<!-- file: sql\/plants\.sql -->\n\n?```sql\n([^]*?)```/.exec(readme)?.[1];
      assert.equal(block, sql);
      const client = await backend.client();
      const schema = `plants_sql_${RUN}`;
      await client.query(`CREATE SCHEMA ${quote(schema)}`, []);
      // The file names no schema: run it as it is, with the fresh schema first on the path. One
      // connection, so that the SET and the file's statement meet.
      const session = await oneSession(client);
      try {
        await session.query(`SET search_path TO ${quote(schema)}`, []);
        await session.query(sql, []);
        await ensurePlantTable(session);
        await ensurePlantTable(client, { schema });
        const repository = createPostgresRepository(client, { schema });
        assert.deepStrictEqual(
          await repository.create({ id: 1n, name: 'a' }, { signal: signal() }),
          {
            created: true,
          },
        );
      } finally {
        await session.query('RESET search_path', []);
        await session.release();
        await client.query(`DROP SCHEMA ${quote(schema)} CASCADE`, []);
      }
    });
  });
}

function post(body: string): Request {
  return new Request('http://localhost/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
    body,
  });
}

async function answer(response: Response) {
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as unknown,
  };
}

const verifier = createStaticTokenVerifier(['t0ken']);

for (const backend of backends) {
  describe(`createPlantStore with createPostgresRepository on ${backend.name}`, () => {
    it('answers 200, 200 on replay and 409 on conflict when plants are stored in the database', async () => {
      const client = await backend.client();
      const { table, repository, cleanup } = await freshTable(client);
      try {
        // A throw inside onError would only reach stderr: collect, then assert.
        const reported: unknown[] = [];
        const store = createPlantStore({ repository, verifier, onError: (e) => reported.push(e) });
        const plant = '{"id": 9223372036854775807, "name": "Monstera \uD83C\uDF3F", "tag": ""}';
        const ok = {
          status: 200,
          type: 'application/json',
          body: { name: 'Monstera 🌿', tag: '' },
        };
        assert.deepStrictEqual(await answer(await store.fetch(post(plant))), ok);
        assert.deepStrictEqual(await answer(await store.fetch(post(plant))), ok);
        const conflict = await answer(
          await store.fetch(post('{"id": 9223372036854775807, "name": "Monstera 🌿"}')),
        );
        assert.deepStrictEqual(conflict, {
          status: 409,
          type: 'application/json',
          body: { error: 409, message: 'a different plant is already stored under this id' },
        });
        const { rows } = await client.query(
          `SELECT id::text AS id, name, tag FROM ${qualified(table)}`,
          [],
        );
        assert.deepStrictEqual(rows, [{ id: '9223372036854775807', name: 'Monstera 🌿', tag: '' }]);
        assert.deepStrictEqual(reported, []);
      } finally {
        await cleanup();
      }
    });

    it('answers 503 to both when the deadline passes, never sends the waiting one, and lets the sent one land', async () => {
      const client = await backend.client();
      const { table, cleanup } = await freshTable(client);
      try {
        const held = heldClient(client);
        const store = createPlantStore({
          repository: createPostgresRepository(held.client, { ...table, maxInFlight: 1 }),
          verifier,
          timeoutMs: 200,
          onError: () => {},
        });
        // The first is sent and held; the second waits behind it for a batch.
        const responses = await Promise.all(
          ['{"id": 1, "name": "sent"}', '{"id": 2, "name": "waiting"}'].map(async (body) =>
            answer(await store.fetch(post(body))),
          ),
        );
        assert.deepStrictEqual(
          responses.map((response) => response.status),
          [503, 503],
        );
        held.release();
        const ids = async () =>
          (await client.query(`SELECT id::text AS id FROM ${qualified(table)}`, [])).rows;
        // The one already sent lands (its retry will be an idempotent replay) ...
        for (let tries = 0; tries < 250 && (await ids()).length === 0; tries++) await sleep(20);
        await sleep(50);
        assert.deepStrictEqual(await ids(), [{ id: '1' }]);
        // ... and the one that waited was never sent.
        assert.deepStrictEqual(
          held.inserts().map((statement) => idsOf(statement.values)),
          [['1']],
        );
      } finally {
        await cleanup();
      }
    });
  });
}

if (backends.length === 0) {
  it.skip(
    'the repository on SQL: neither PGlite (npm ci --prefix test/repositories) nor DATABASE_URL',
  );
}

describe('createPlantStore with createPostgresRepository', () => {
  it('answers 500 internal error and reports the cause when the database fails', async () => {
    const failure = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    const { client } = scriptedClient(async () => {
      throw failure;
    });
    const reported: unknown[] = [];
    const store = createPlantStore({
      repository: createPostgresRepository(client),
      verifier,
      onError: (error) => reported.push(error),
    });
    assert.deepStrictEqual(await answer(await store.fetch(post('{"id": 1, "name": "a"}'))), {
      status: 500,
      type: 'application/json',
      body: { error: 500, message: 'internal error' },
    });
    assert.deepStrictEqual(reported, [failure]);
  });

  it('answers 503 to a create whose deadline passes while it waits, and never sends it', async () => {
    const { client, calls } = scriptedClient(() => new Promise(() => {}));
    const reported: unknown[] = [];
    const store = createPlantStore({
      repository: createPostgresRepository(client, { maxInFlight: 1 }),
      verifier,
      timeoutMs: 50,
      onError: (error) => reported.push(error),
    });
    const responses = await Promise.all(
      ['{"id": 1, "name": "a"}', '{"id": 2, "name": "b"}'].map(async (body) =>
        answer(await store.fetch(post(body))),
      ),
    );
    assert.deepStrictEqual(
      responses.map((response) => response.status),
      [503, 503],
    );
    await sleep(10);
    assert.deepStrictEqual(
      calls.map((call) => idsOf(call.values)),
      [['1']],
    );
    // Each create is reported once, naming the repository it waited on.
    assert.deepStrictEqual(
      reported.map((error) => (error as { code?: string }).code),
      ['ERR_REPOSITORY_TIMEOUT', 'ERR_REPOSITORY_TIMEOUT'],
    );
  });

  it('answers 503 when the database does not answer before the deadline', async () => {
    const { client, calls } = scriptedClient(() => new Promise(() => {}));
    const reported: unknown[] = [];
    const store = createPlantStore({
      repository: createPostgresRepository(client),
      verifier,
      timeoutMs: 50,
      onError: (error) => reported.push(error),
    });
    const response = await answer(await store.fetch(post('{"id": 1, "name": "a"}')));
    assert.equal(response.status, 503);
    assert.deepStrictEqual(response.body, {
      error: 503,
      message: 'the request timed out; retrying it is safe',
    });
    assert.equal(calls.length, 1);
    assert.deepStrictEqual(
      reported.map((error) => (error as { code?: string }).code),
      ['ERR_REPOSITORY_TIMEOUT'],
    );
  });
});

if (DATABASE_URL !== undefined && DATABASE_URL !== '') {
  describe('createPostgresRepository with prepare: true on the PostgreSQL server: the conformance kit', () => {
    const tablesOf = new WeakMap<PlantRepository, PostgresTableOptions>();
    registerRepositoryConformance(
      it,
      async () => {
        const pool = await poolA();
        const fresh = await freshTable(pool);
        const repository = createPostgresRepository(pool, { ...fresh.table, prepare: true });
        tablesOf.set(repository, fresh.table);
        return { repository, cleanup: fresh.cleanup };
      },
      {
        makeSecondInstance: async (first) =>
          createPostgresRepository(await poolB(), { ...tablesOf.get(first), prepare: true }),
      },
    );
  });

  describe('createPostgresRepository with prepare: true on the PostgreSQL server', () => {
    it('prepares each statement once on the connection, by a name of its own per text', async () => {
      const connection = new pg.Client({ connectionString: DATABASE_URL });
      await connection.connect();
      const { table, cleanup } = await freshTable(connection);
      try {
        // One statement at a time: a Client runs one at a time anyway.
        const repository = createPostgresRepository(connection, {
          ...table,
          prepare: true,
          maxInFlight: 1,
        });
        const create = (id: bigint, name: string) =>
          repository.create({ id, name }, { signal: signal() });
        // Lone creates and a replay (the one-row insert, then the one-id read) ...
        assert.deepStrictEqual(await create(1n, 'a'), { created: true });
        assert.deepStrictEqual(await create(2n, 'b'), { created: true });
        assert.deepStrictEqual(await create(1n, 'a'), {
          created: false,
          existing: { name: 'a' },
        });
        // ... then more at once than may be in flight, so that all but the first wait and go
        // together: the batch insert, and the batch read of the two taken ids.
        const many = await Promise.all([
          ...Array.from({ length: 8 }, (_, i) => create(BigInt(10 + i), 'c')),
          create(1n, 'd'),
          create(2n, 'e'),
        ]);
        assert.deepStrictEqual(many, [
          ...Array(8).fill({ created: true }),
          { created: false, existing: { name: 'a' } },
          { created: false, existing: { name: 'b' } },
        ]);
        const { rows } = await connection.query(
          'SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time',
        );
        const prepared = rows as Array<{ name: string; statement: string }>;
        assert.equal(prepared.length, 4, JSON.stringify(prepared));
        for (const { name, statement } of prepared) {
          assert.match(name, /^plant_store_[0-9a-z]+_[0-9]+$/);
          assert.ok(statement.includes(qualified(table)), statement);
        }
        assert.equal(new Set(prepared.map(({ name }) => name)).size, 4);
      } finally {
        await cleanup();
        await connection.end();
      }
    });

    it('goes on unnamed when the server forgets its prepared statements, as behind a pooler', async () => {
      const connection = new pg.Client({ connectionString: DATABASE_URL });
      await connection.connect();
      const { table, cleanup } = await freshTable(connection);
      try {
        const repository = createPostgresRepository(connection, { ...table, prepare: true });
        const context = { signal: signal() };
        assert.deepStrictEqual(await repository.create({ id: 1n, name: 'a' }, context), {
          created: true,
        });
        // The client still takes the statement for prepared; the server answers 26000.
        await connection.query('DEALLOCATE ALL');
        assert.deepStrictEqual(await repository.create({ id: 2n, name: 'b' }, context), {
          created: true,
        });
        assert.deepStrictEqual(await repository.create({ id: 2n, name: 'b' }, context), {
          created: false,
          existing: { name: 'b' },
        });
        const { rows } = await connection.query('SELECT name FROM pg_prepared_statements');
        assert.deepStrictEqual(rows, []);
      } finally {
        await cleanup();
        await connection.end();
      }
    });
  });
}

if (DATABASE_URL !== undefined && DATABASE_URL !== '') {
  describe('createPostgresRepository across processes on the PostgreSQL server', () => {
    it('lets exactly one create win when 50 creates of one id are split over two pools', async () => {
      const [a, b] = [await poolA(), await poolB()];
      const { table, cleanup } = await freshTable(a);
      try {
        const repositories = [
          createPostgresRepository(a, table),
          createPostgresRepository(b, table),
        ];
        for (let round = 0; round < 10; round++) {
          const id = BigInt(round);
          const contenders: NewPlant[] = Array.from({ length: 50 }, (_, i) => ({
            id,
            name: `racer ${i}`,
            tag: i % 3 === 0 ? 'x' : undefined,
          })).map((plant) => (plant.tag === undefined ? { id, name: plant.name } : plant));
          const outcomes = await Promise.all(
            contenders.map((plant, i) =>
              (repositories[i % 2] as PlantRepository).create(plant, { signal: signal() }),
            ),
          );
          const winners = outcomes.flatMap((outcome, i) => (outcome.created ? [i] : []));
          assert.equal(winners.length, 1, `round ${round}: ${winners.length} winners`);
          const { id: _, ...stored } = contenders[winners[0] as number] as NewPlant;
          for (const outcome of outcomes) {
            if (!outcome.created) assert.deepStrictEqual(outcome.existing, stored);
          }
        }
      } finally {
        await cleanup();
      }
    });

    it('lets exactly one create of each id win when two pools batch overlapping ids', async () => {
      const [a, b] = [await poolA(), await poolB()];
      const { table, cleanup } = await freshTable(a);
      try {
        const repositories = [
          createPostgresRepository(a, table),
          createPostgresRepository(b, table),
        ];
        // 400 creates over 40 ids, in a different order on each side: batches on both sides share
        // ids, and must neither deadlock nor both win one.
        const creates = Array.from({ length: 400 }, (_, i) => ({
          side: i % 2,
          plant: {
            id: BigInt(i % 2 === 0 ? (i >> 1) % 40 : 39 - ((i >> 1) % 40)),
            name: `n${i % 3}`,
          },
        }));
        const outcomes = await Promise.all(
          creates.map(({ side, plant }) =>
            (repositories[side] as PlantRepository).create(plant, { signal: signal() }),
          ),
        );
        const { rows } = await a.query(`SELECT id::text AS id, name FROM ${qualified(table)}`);
        const stored = new Map(rows.map((row) => [row.id as string, row.name as string]));
        assert.equal(stored.size, 40);
        const winners = new Map<string, number>();
        for (const [i, outcome] of outcomes.entries()) {
          const { plant } = creates[i] as (typeof creates)[number];
          const id = String(plant.id);
          if (outcome.created) {
            winners.set(id, (winners.get(id) ?? 0) + 1);
            assert.equal(stored.get(id), plant.name);
          } else assert.deepStrictEqual(outcome.existing, { name: stored.get(id) });
        }
        assert.deepStrictEqual([...winners.values()], Array(40).fill(1));
      } finally {
        await cleanup();
      }
    });

    // The READ COMMITTED trap: one statement that inserts and reads (a CTE) waits for the other
    // transaction, then reads with its old snapshot and finds no row at all. The separate read
    // must see the row committed meanwhile.
    it('returns the row another transaction committed while the create waited on it', async () => {
      const pool = await poolA();
      const { table, cleanup } = await freshTable(pool);
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO ${qualified(table)} (id, name) VALUES (9, 'holder')`);
        const repository = createPostgresRepository(await poolB(), table);
        let settled = false;
        const pending = repository.create({ id: 9n, name: 'late' }, { signal: signal() });
        const settle = () => {
          settled = true;
        };
        pending.then(settle, settle);
        await sleep(200);
        assert.equal(settled, false, 'the create should wait for the open transaction');
        await holder.query('COMMIT');
        assert.deepStrictEqual(await pending, { created: false, existing: { name: 'holder' } });
      } finally {
        holder.release();
        await cleanup();
      }
    });

    it('creates the plant when the transaction it waited on rolls back', async () => {
      const pool = await poolA();
      const { table, cleanup } = await freshTable(pool);
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`INSERT INTO ${qualified(table)} (id, name) VALUES (9, 'holder')`);
        const repository = createPostgresRepository(await poolB(), table);
        const pending = repository.create({ id: 9n, name: 'late' }, { signal: signal() });
        await sleep(200);
        await holder.query('ROLLBACK');
        assert.deepStrictEqual(await pending, { created: true });
        const { rows } = await pool.query(`SELECT name FROM ${qualified(table)}`);
        assert.deepStrictEqual(rows, [{ name: 'late' }]);
      } finally {
        holder.release();
        await cleanup();
      }
    });
  });
}

describe('createPostgresRepository', () => {
  it('sends the id as exact decimal text and every value as a parameter when it creates', async () => {
    const { client, calls } = scriptedClient(async () => ({
      rows: [{ id: '9223372036854775807' }],
    }));
    const repository = createPostgresRepository(client, { table: 'plants' });
    const name = "x'); DROP TABLE plants; --";
    await repository.create({ id: 9223372036854775807n, name, tag: 't' }, { signal: signal() });
    assert.equal(calls.length, 1);
    assert.deepStrictEqual(calls[0]?.values, ['9223372036854775807', name, 't']);
    assert.equal(calls[0]?.text.includes(name), false);
    assert.equal(
      calls[0]?.text,
      'INSERT INTO "plants" (id, name, tag) VALUES ($1::bigint, $2::text, $3::text) ON CONFLICT (id) DO NOTHING RETURNING id::text AS id',
    );
  });

  it('sends every statement by name with prepare: true, one name per text', async () => {
    const calls: Array<{ name: string; text: string; values: unknown[] }> = [];
    const client = {
      query: async (statement: string | { name: string; text: string; values: unknown[] }) => {
        if (typeof statement === 'string') throw new Error('a statement without a name');
        calls.push(statement);
        return { rows: [] };
      },
    };
    const context = { signal: signal() };
    const plants = createPostgresRepository(client, { table: 'plants', prepare: true });
    const trees = createPostgresRepository(client, { table: 'trees', prepare: true });
    // No row inserted and none found: each create retries, so every statement goes more than once.
    await assert.rejects(plants.create({ id: 1n, name: 'a' }, context));
    await assert.rejects(plants.create({ id: 2n, name: 'b' }, context));
    await assert.rejects(trees.create({ id: 1n, name: 'a' }, context));
    const names = new Map<string, string>();
    for (const { name, text } of calls) {
      assert.equal(names.get(text) ?? name, name, text);
      names.set(text, name);
    }
    assert.equal(names.size, 4);
    assert.equal(new Set(names.values()).size, 4);
    assert.deepStrictEqual(calls[0]?.values, ['1', 'a', null]);
  });

  it('sends statements unnamed from then on when a pooler loses the prepared ones', async () => {
    for (const code of ['26000', '42P05']) {
      const calls: Array<string | { name: string }> = [];
      const client = {
        query: async (statement: string | { name: string; text: string; values: unknown[] }) => {
          calls.push(typeof statement === 'string' ? 'unnamed' : { name: statement.name });
          // What PostgreSQL answers behind PgBouncer in transaction mode, having run nothing.
          if (typeof statement !== 'string') throw Object.assign(new Error('lost'), { code });
          return { rows: [{ id: '1' }] };
        },
      };
      const repository = createPostgresRepository(client, { prepare: true });
      const context = { signal: signal() };
      assert.deepStrictEqual(await repository.create({ id: 1n, name: 'a' }, context), {
        created: true,
      });
      assert.deepStrictEqual(await repository.create({ id: 1n, name: 'a' }, context), {
        created: true,
      });
      assert.equal(calls.length, 3, code);
      assert.equal(typeof calls[0], 'object', code);
      assert.deepStrictEqual(calls.slice(1), ['unnamed', 'unnamed'], code);
    }
  });

  it('rejects with the error and keeps naming statements when a named one fails otherwise', async () => {
    const failure = Object.assign(new Error('not null'), { code: '23502' });
    const names: string[] = [];
    const client = {
      query: async (statement: string | { name: string; text: string; values: unknown[] }) => {
        if (typeof statement === 'string') throw new Error('a statement without a name');
        names.push(statement.name);
        throw failure;
      },
    };
    const repository = createPostgresRepository(client, { prepare: true });
    const context = { signal: signal() };
    await assert.rejects(repository.create({ id: 1n, name: 'a' }, context), (e) => e === failure);
    await assert.rejects(repository.create({ id: 2n, name: 'b' }, context), (e) => e === failure);
    assert.equal(names.length, 2);
  });

  it('throws a TypeError when prepare is not a boolean', () => {
    const { client } = scriptedClient(async () => ({ rows: [] }));
    for (const prepare of ['true', 1, null]) {
      assert.throws(
        () => createPostgresRepository(client, { prepare: prepare as unknown as false }),
        {
          name: 'TypeError',
          message: 'createPostgresRepository: option prepare must be true or false',
        },
        String(prepare),
      );
    }
  });

  it('sends a lone create at once, alone, when no statement is in flight', () => {
    const { client, calls } = scriptedClient(async (_text, values) => ({
      rows: idsOf(values).map((id) => ({ id })),
    }));
    const repository = createPostgresRepository(client);
    void repository.create({ id: 1n, name: 'a' }, { signal: signal() });
    // Counted before any await: nothing waits for a timer or a later turn.
    assert.equal(calls.length, 1);
    assert.deepStrictEqual(calls[0]?.values, ['1', 'a', null]);
  });

  it('sends the waiting creates in batches of at most maxBatchSize when they pile up', async () => {
    const answers: Array<() => void> = [];
    const { client, calls } = scriptedClient(
      (_text, values) =>
        new Promise((resolve) => {
          answers.push(() => resolve({ rows: idsOf(values).map((id) => ({ id })) }));
        }),
    );
    const repository = createPostgresRepository(client, { maxBatchSize: 4, maxInFlight: 1 });
    const outcomes = Array.from({ length: 11 }, (_, i) =>
      repository.create({ id: BigInt(i), name: 'a' }, { signal: signal() }),
    );
    for (let answered = 0; answered < 4; answered++) {
      await sleep(1);
      answers[answered]?.();
    }
    assert.deepStrictEqual(await Promise.all(outcomes), Array(11).fill({ created: true }));
    assert.deepStrictEqual(
      calls.map((call) => idsOf(call.values).length),
      [1, 4, 4, 2],
    );
  });

  it('rejects with the signal reason and sends no query when the signal is already aborted', async () => {
    const { client, calls } = scriptedClient(async () => ({ rows: [] }));
    const reason = new Error('gone');
    await assert.rejects(
      createPostgresRepository(client).create(
        { id: 1n, name: 'a' },
        { signal: AbortSignal.abort(reason) },
      ),
      (error) => error === reason,
    );
    assert.equal(calls.length, 0);
  });

  it('rejects at once with the signal reason when the signal fires mid-query after it waited for a batch', async () => {
    const finishes: Array<(value: { rows: unknown[] }) => void> = [];
    const { client, calls } = scriptedClient(
      () =>
        new Promise((resolve) => {
          finishes.push(resolve);
        }),
    );
    const repository = createPostgresRepository(client, { maxInFlight: 1 });
    const first = repository.create({ id: 1n, name: 'a' }, { signal: signal() });
    const controller = new AbortController();
    const reason = new Error('deadline');
    const pending = repository.create({ id: 2n, name: 'b' }, { signal: controller.signal });
    finishes[0]?.({ rows: [{ id: '1' }] });
    assert.deepStrictEqual(await first, { created: true });
    await sleep(5);
    assert.equal(calls.length, 2, 'the waiting create is sent');
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
    // The insert answers late with a conflict: no read follows, and nothing is left unhandled.
    finishes[1]?.({ rows: [] });
    await sleep(5);
    assert.equal(calls.length, 2);
  });

  it('rejects with the signal reason and sends no read when the signal fired while a create sent at once was in flight', async () => {
    let finishInsert: (value: { rows: unknown[] }) => void = () => {};
    const { client, calls } = scriptedClient(
      () =>
        new Promise((resolve) => {
          finishInsert = resolve;
        }),
    );
    const controller = new AbortController();
    const reason = new Error('deadline');
    const pending = createPostgresRepository(client).create(
      { id: 1n, name: 'a' },
      { signal: controller.signal },
    );
    await sleep(5);
    controller.abort(reason);
    // The insert answers with a conflict: the create ends there, without the read.
    finishInsert({ rows: [] });
    await assert.rejects(pending, (error) => error === reason);
    assert.equal(calls.length, 1);
  });

  it("rejects with the driver's own error when a query rejects or throws", async () => {
    const failure = Object.assign(new Error('connection terminated'), { code: '57P01' });
    const rejecting = scriptedClient(async () => {
      throw failure;
    });
    await assert.rejects(
      createPostgresRepository(rejecting.client).create(
        { id: 1n, name: 'a' },
        { signal: signal() },
      ),
      (error) => error === failure,
    );
    const throwing: PostgresClient = {
      query() {
        throw failure;
      },
    };
    await assert.rejects(
      createPostgresRepository(throwing).create({ id: 1n, name: 'a' }, { signal: signal() }),
      (error) => error === failure,
    );
  });

  it('gives up with an error when the row vanishes on every attempt', async () => {
    const { client, calls } = scriptedClient(async () => ({ rows: [] }));
    await assert.rejects(
      createPostgresRepository(client).create({ id: 4n, name: 'a' }, { signal: signal() }),
      /deleted during every one of 3 attempts/,
    );
    assert.deepStrictEqual(
      calls.map((call) => call.text.split(' ')[0]),
      ['INSERT', 'SELECT', 'INSERT', 'SELECT', 'INSERT', 'SELECT'],
    );
  });

  it('rejects when the database returns a row of the wrong shape', async () => {
    for (const row of [
      { id: '1', name: 1, tag: null },
      { id: '1', name: '.a', tag: 2 },
      { id: '1', tag: '.a' },
      { name: '.a', tag: null },
    ]) {
      const { client } = scriptedClient(async (text) => ({
        rows: text.startsWith('SELECT') ? [row] : [],
      }));
      await assert.rejects(
        createPostgresRepository(client).create({ id: 1n, name: 'a' }, { signal: signal() }),
        /row of the wrong shape/,
      );
    }
  });

  it('rejects with a TypeError when query resolves to something without rows', async () => {
    for (const result of [undefined, {}, { rows: 'no' }]) {
      const { client } = scriptedClient(async () => result);
      await assert.rejects(
        createPostgresRepository(client).create({ id: 1n, name: 'a' }, { signal: signal() }),
        TypeError,
      );
      const noSignal = createPostgresRepository(client).create(
        { id: 1n, name: 'a' },
        undefined as unknown as { signal: AbortSignal },
      );
      await assert.rejects(noSignal, TypeError);
    }
  });

  it('throws a TypeError when the client or a name is unusable', () => {
    const { client } = scriptedClient(async () => ({ rows: [] }));
    assert.throws(() => createPostgresRepository({} as PostgresClient), TypeError);
    for (const options of [
      { table: '' },
      { table: 'a\0b' },
      { table: 'x'.repeat(64) },
      { table: 'é'.repeat(32) },
      { schema: '' },
    ]) {
      assert.throws(
        () => createPostgresRepository(client, options),
        TypeError,
        JSON.stringify(options),
      );
      assert.throws(() => ensurePlantTable(client, options), TypeError, JSON.stringify(options));
    }
    assert.doesNotThrow(() => createPostgresRepository(client, { table: 'x'.repeat(63) }));
  });

  it('throws a TypeError naming an option it does not know, rather than using the default table', () => {
    const { client } = scriptedClient(async () => ({ rows: [] }));
    // With one known option beside it, the misspelled one type-checks.
    const options = { schema: 'garden', tableName: 'plants' };
    assert.throws(() => createPostgresRepository(client, options), {
      name: 'TypeError',
      message:
        'createPostgresRepository: unknown option "tableName"; did you mean "table"? (known: table, schema, maxBatchSize, maxInFlight, prepare)',
    });
    assert.throws(() => ensurePlantTable(client, options), {
      name: 'TypeError',
      message:
        'ensurePlantTable: unknown option "tableName"; did you mean "table"? (known: table, schema)',
    });
  });

  it('throws a TypeError when maxInFlight is not an integer from 1 to 1,000', () => {
    const { client } = scriptedClient(async () => ({ rows: [] }));
    for (const maxInFlight of [0, 2.5, 1_001, Number.NaN, '4', null]) {
      assert.throws(
        () => createPostgresRepository(client, { maxInFlight: maxInFlight as number }),
        {
          name: 'TypeError',
          message: 'createPostgresRepository: option maxInFlight must be an integer from 1 to 1000',
        },
        String(maxInFlight),
      );
    }
  });

  it('sends creates at once while fewer than maxInFlight statements are in flight', async () => {
    const answers: Array<() => void> = [];
    const { client, calls } = scriptedClient(
      (_text, values) =>
        new Promise((resolve) => {
          answers.push(() => resolve({ rows: idsOf(values).map((id) => ({ id })) }));
        }),
    );
    const repository = createPostgresRepository(client, { maxInFlight: 2 });
    const outcomes = Array.from({ length: 5 }, (_, i) =>
      repository.create({ id: BigInt(i), name: 'a' }, { signal: signal() }),
    );
    assert.deepStrictEqual(
      calls.map((call) => idsOf(call.values)),
      [['0'], ['1']],
    );
    answers[0]?.();
    await sleep(1);
    assert.deepStrictEqual(
      calls.map((call) => idsOf(call.values)),
      [['0'], ['1'], ['2', '3', '4']],
    );
    for (const answer of answers.slice(1)) answer();
    assert.deepStrictEqual(await Promise.all(outcomes), Array(5).fill({ created: true }));
  });

  it('throws a TypeError when maxBatchSize is not an integer from 1 to 10,000', () => {
    const { client } = scriptedClient(async () => ({ rows: [] }));
    for (const maxBatchSize of [0, -1, 1.5, 10_001, Number.NaN, Infinity, '5', null]) {
      assert.throws(
        () => createPostgresRepository(client, { maxBatchSize: maxBatchSize as number }),
        {
          name: 'TypeError',
          message:
            'createPostgresRepository: option maxBatchSize must be an integer from 1 to 10000',
        },
        String(maxBatchSize),
      );
    }
    for (const maxBatchSize of [1, 10_000, undefined]) {
      assert.doesNotThrow(() => createPostgresRepository(client, { maxBatchSize }));
    }
  });
});
