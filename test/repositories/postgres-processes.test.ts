/**
 * createPostgresRepository across processes on the server: two pools on one table, as two
 * processes would be, with exactly one winner per id.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NewPlant, PlantRepository } from '../../lib/index.ts';
import { createPostgresRepository } from '../../lib/postgres.ts';
import { hasServer, poolA, poolB, qualified, signal, tableFor } from './postgres-backends.ts';
import { holdRow } from './postgres-server.ts';

/**
 * A fresh table, made on the first pool and dropped when `t` ends, and a repository on it over
 * each of the two pools: two processes, as far as the server can tell.
 */
async function twoProcesses(t: TestContext) {
  const [a, b] = [await poolA(), await poolB()];
  const { table } = await tableFor(t, a);
  const repositories = [
    createPostgresRepository(a, table),
    createPostgresRepository(b, table),
  ] as const;
  return { pool: a, table, repositories };
}

if (hasServer) {
  describe('createPostgresRepository across processes on the PostgreSQL server', () => {
    it('lets exactly one create win when 50 creates of one id are split over two pools', async (t) => {
      const { repositories } = await twoProcesses(t);
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
    });

    it('lets exactly one create of each id win when two pools batch overlapping ids', async (t) => {
      const { pool, table, repositories } = await twoProcesses(t);
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
      const { rows } = await pool.query(`SELECT id::text AS id, name FROM ${qualified(table)}`);
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
    });

    // The READ COMMITTED trap: one statement that inserts and reads (a CTE) waits for the other
    // transaction, then reads with its old snapshot and finds no row at all. The separate read
    // must see the row committed meanwhile.
    it('returns the row another transaction committed while the create waited on it', async (t) => {
      const { pool, table, repositories } = await twoProcesses(t);
      const holder = await holdRow(pool, table, 9);
      try {
        let settled = false;
        const pending = repositories[1].create({ id: 9n, name: 'late' }, { signal: signal() });
        const settle = () => {
          settled = true;
        };
        pending.then(settle, settle);
        await sleep(200);
        assert.equal(settled, false, 'the create should wait for the open transaction');
        await holder.commit();
        assert.deepStrictEqual(await pending, { created: false, existing: { name: 'holder' } });
      } finally {
        await holder.end();
      }
    });

    it('creates the plant when the transaction it waited on rolls back', async (t) => {
      const { pool, table, repositories } = await twoProcesses(t);
      const holder = await holdRow(pool, table, 9);
      try {
        const pending = repositories[1].create({ id: 9n, name: 'late' }, { signal: signal() });
        await sleep(200);
        await holder.rollback();
        assert.deepStrictEqual(await pending, { created: true });
        const { rows } = await pool.query(`SELECT name FROM ${qualified(table)}`);
        assert.deepStrictEqual(rows, [{ name: 'late' }]);
      } finally {
        await holder.end();
      }
    });
  });
}
