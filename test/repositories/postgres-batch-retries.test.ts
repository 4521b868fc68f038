/**
 * createPostgresRepository after a failed batch statement: which creates are sent again, and
 * how many statements are then in flight.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewPlant } from '../../lib/index.ts';
import { createPostgresRepository, type PostgresClient } from '../../lib/postgres.ts';
import {
  backends,
  freshTable,
  heldClient,
  qualified,
  scriptedClient,
  signal,
  skipWithoutBackends,
} from './postgres-backends.ts';

for (const backend of backends) {
  describe(`createPostgresRepository after a failed batch on ${backend.name}`, () => {
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
  });
}

skipWithoutBackends();

describe('createPostgresRepository after a failed statement', () => {
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
});
