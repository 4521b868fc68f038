/**
 * createPostgresRepository: the conformance kit on PGlite and the server, what it stores
 * and how, and what it refuses at construction.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlantRepository } from '../../lib/index.ts';
import {
  createPostgresRepository,
  ensurePlantTable,
  type PostgresClient,
  type PostgresTableOptions,
} from '../../lib/postgres.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';
import {
  backends,
  freshTable,
  poolB,
  qualified,
  quote,
  RUN,
  scriptedClient,
  signal,
  skipWithoutBackends,
  tableFor,
  uniqueTableName,
} from './postgres-backends.ts';

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
    it('stores ids as exact bigints when they are at the ends of the int64 range', async (t) => {
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
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
    });

    it("stores NULL for an absent tag and '' for an empty one when both are created", async (t) => {
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
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
    });

    it('returns a plant without a tag when a row with a NULL tag was inserted by hand', async (t) => {
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
      await client.query(
        `INSERT INTO ${qualified(table)} (id, name, tag) VALUES (7, 'by hand', NULL)`,
        [],
      );
      const outcome = await repository.create({ id: 7n, name: 'by hand' }, { signal: signal() });
      assert.deepStrictEqual(outcome, { created: false, existing: { name: 'by hand' } });
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

    it('inserts again when the row is deleted between the insert and the read', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
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
    });

    it('rejects with a TypeError and stores nothing when a name or tag is not well-formed UTF-16', async (t) => {
      // PostgreSQL once stored a lone surrogate as U+FFFD and answered created: its replay then
      // read back another name, a conflict.
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
      for (const [field, plant] of [
        ['name', { id: 1n, name: 'lone \uD800 high' }],
        ['name', { id: 1n, name: '\uDC00' }],
        ['tag', { id: 1n, name: 'fine', tag: 'cut \uD83C' }],
      ] as const) {
        await assert.rejects(repository.create(plant, { signal: signal() }), {
          name: 'TypeError',
          message: `plant-store/postgres: the plant's ${field} is not well-formed UTF-16 (it holds a lone surrogate), so it cannot be stored as it is`,
        });
      }
      const { rows } = await client.query(`SELECT id FROM ${qualified(table)}`, []);
      assert.deepStrictEqual(rows, []);
      assert.deepStrictEqual(
        await repository.create({ id: 1n, name: 'a 🌿 pair' }, { signal: signal() }),
        { created: true },
      );
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
}

skipWithoutBackends();

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
        'createPostgresRepository: unknown option "tableName" (known: table, schema, maxBatchSize, maxInFlight, prepare)',
    });
    assert.throws(() => ensurePlantTable(client, options), {
      name: 'TypeError',
      message: 'ensurePlantTable: unknown option "tableName" (known: table, schema)',
    });
  });
});
