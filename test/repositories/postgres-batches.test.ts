/**
 * createPostgresRepository's batching: creates that arrive while statements are in flight go
 * together, each with its own outcome, within maxBatchSize and maxInFlight, and a create whose
 * signal fires is not sent.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresRepository } from '../../lib/postgres.ts';
import {
  backends,
  heldRepository,
  idsOf,
  qualified,
  scriptedClient,
  signal,
  skipWithoutBackends,
  storedIds,
  tableFor,
} from './postgres-backends.ts';

for (const backend of backends) {
  describe(`createPostgresRepository's batches on ${backend.name}`, () => {
    it('sends the creates that arrive while a statement is in flight together in one statement', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const first = held.create({ id: 1n, name: 'first' });
      const rest = Array.from({ length: 20 }, (_, i) =>
        held.create({ id: BigInt(100 + i), name: `${i}` }),
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
      assert.equal((await storedIds(client, table)).length, 21);
    });

    it('lets exactly one create of an id win when several of it share one batch', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const first = held.create({ id: 1n, name: 'hold' });
      const batch = [
        held.create({ id: 7n, name: 'Fern', tag: 'green' }),
        held.create({ id: 7n, name: 'Fern', tag: 'green' }),
        held.create({ id: 7n, name: 'Cactus' }),
        held.create({ id: 8n, name: 'Moss' }),
        held.create({ id: 8n, name: 'Moss' }),
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
    });

    it('answers stored, replay and conflict in one batch when some ids are taken', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      await client.query(
        `INSERT INTO ${qualified(table)} (id, name, tag) VALUES (5, 'Ivy', NULL), (6, 'Fern', 'x')`,
        [],
      );
      const held = heldRepository(client, table);
      const first = held.create({ id: 1n, name: 'hold' });
      const batch = [
        held.create({ id: 5n, name: 'Ivy' }),
        held.create({ id: 6n, name: 'Other' }),
        held.create({ id: 9n, name: 'New' }),
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
    });

    it('never sends a create whose signal aborts while it waits for a batch', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const first = held.create({ id: 1n, name: 'hold' });
      const controller = new AbortController();
      const reason = new Error('deadline');
      const late = held.repository.create({ id: 2n, name: 'late' }, { signal: controller.signal });
      const onTime = held.create({ id: 3n, name: 'on time' });
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
      assert.deepStrictEqual(await storedIds(client, table), ['1', '3']);
    });

    it('listens to the signal only of a create that waits for a batch', async (t) => {
      // A listener on an AbortSignal is the dearest part of a lone create's own work: the idle
      // case, one create at a time, must not pay it.
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const alone = signal();
      const waiting = signal();
      const aloneListens = t.mock.method(alone, 'addEventListener');
      const waitingListens = t.mock.method(waiting, 'addEventListener');
      const first = held.repository.create({ id: 1n, name: 'alone' }, { signal: alone });
      const second = held.repository.create({ id: 2n, name: 'waits' }, { signal: waiting });
      held.release();
      assert.deepStrictEqual(await Promise.all([first, second]), [
        { created: true },
        { created: true },
      ]);
      assert.equal(aloneListens.mock.callCount(), 0, 'the create sent at once');
      assert.equal(waitingListens.mock.callCount(), 1, 'the create that waited');
    });
  });
}

skipWithoutBackends();

describe("createPostgresRepository's batches", () => {
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
