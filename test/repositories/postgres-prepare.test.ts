/**
 * createPostgresRepository with prepare: true: named statements, prepared once per connection,
 * and unnamed ones from then on behind a pooler that loses them.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlantRepository } from '../../lib/index.ts';
import { createPostgresRepository, type PostgresTableOptions } from '../../lib/postgres.ts';
import { registerRepositoryConformance } from '../../lib/testing.ts';
import {
  freshTable,
  hasServer,
  poolA,
  poolB,
  qualified,
  scriptedClient,
  signal,
} from './postgres-backends.ts';
import { connectionTable } from './postgres-server.ts';

if (hasServer) {
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
    it('prepares each statement once on the connection, by a name of its own per text', async (t) => {
      const { connection, table } = await connectionTable(t);
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
    });

    it('goes on unnamed when the server forgets its prepared statements, as behind a pooler', async (t) => {
      const { connection, table } = await connectionTable(t);
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
    });
  });
}

describe('createPostgresRepository with prepare: true', () => {
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
});
