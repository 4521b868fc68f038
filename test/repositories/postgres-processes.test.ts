/**
 * createPostgresRepository across processes on the server: two pools on one table, as two
 * processes would be, with exactly one winner per id.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NewPlant, PlantRepository } from '../../lib/index.ts';
import { createPostgresRepository } from '../../lib/postgres.ts';
import { freshTable, hasServer, poolA, poolB, qualified, signal } from './postgres-backends.ts';

if (hasServer) {
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
