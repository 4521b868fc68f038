/**
 * ensurePlantTable on PGlite and the server: it creates the table, and refuses one that cannot
 * hold every plant.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  createPostgresRepository,
  ensurePlantTable,
  type PostgresClient,
} from '../../lib/postgres.ts';
import {
  backends,
  oneSession,
  poolB,
  qualified,
  quote,
  RUN,
  signal,
  skipWithoutBackends,
  tableFor,
  uniqueTableName,
} from './postgres-backends.ts';

for (const backend of backends) {
  describe(`ensurePlantTable on ${backend.name}`, () => {
    it('creates the table with the documented columns when it is missing', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
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
    });

    it('keeps the table and its plants when it is called again', async (t) => {
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
      await repository.create({ id: 1n, name: 'kept' }, { signal: signal() });
      await ensurePlantTable(client, table);
      await ensurePlantTable(client, table);
      assert.deepStrictEqual(await repository.create({ id: 1n, name: 'x' }, { signal: signal() }), {
        created: false,
        existing: { name: 'kept' },
      });
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

    it('accepts the table sql/plants.sql creates, which docs/storage.md shows', async () => {
      const sql = readFileSync(new URL('../../sql/plants.sql', import.meta.url), 'utf8');
      const page = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');
      const block = /<!-- file: sql\/plants\.sql -->\n\n?```sql\n([^]*?)```/.exec(page)?.[1];
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

skipWithoutBackends();
