/**
 * createPostgresRepository after a failed batch statement: which creates are sent again, how
 * many statements are then in flight, and what the others reject with.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import type { CreatePlantOutcome, NewPlant } from '../../lib/index.ts';
import { PlantApiError } from '../../lib/index.ts';
import { createPostgresRepository, type PostgresClient } from '../../lib/postgres.ts';
import { withDeadline } from '../support/node-helpers.ts';
import {
  backends,
  hasServer,
  heldRepository,
  idsOf,
  scriptedClient,
  signal,
  skipWithoutBackends,
  storedIds,
  tableFor,
} from './postgres-backends.ts';
import { holdRow, poolFor, readOnlyPool, serverTable } from './postgres-server.ts';

/** The client, counting its statements and the most of them in flight at once. */
function gaugedClient(client: PostgresClient) {
  const gauge = { now: 0, most: 0, statements: 0 };
  const gauged: PostgresClient = {
    async query(text, values) {
      gauge.statements += 1;
      gauge.now += 1;
      gauge.most = Math.max(gauge.most, gauge.now);
      try {
        return await client.query(text, values);
      } finally {
        gauge.now -= 1;
      }
    },
  };
  return { client: gauged, gauge };
}

/** Every create's outcome, raced against a deadline so that a hang fails as an assertion. */
function settleAll(creates: Array<Promise<CreatePlantOutcome>>, what: string) {
  return withDeadline(Promise.allSettled(creates), what, 20_000);
}

/** The reason of a rejected outcome (or the assertion that it was not rejected). */
function reasonOf(outcome: PromiseSettledResult<unknown> | undefined): unknown {
  assert.equal(outcome?.status, 'rejected', JSON.stringify(outcome));
  return (outcome as PromiseRejectedResult).reason;
}

/** Asserts the error is the repository's unavailability, caused by `cause`. */
function assertUnavailable(error: unknown, cause: unknown): void {
  assert.ok(error instanceof PlantApiError, String(error));
  assert.equal(error.code, 'ERR_STORE_UNAVAILABLE');
  assert.equal(error.status, 503);
  assert.equal(error.cause, cause);
  assert.match(error.message, /^plant-store\/postgres: the database is unavailable/);
}

for (const backend of backends) {
  describe(`createPostgresRepository after a failed batch on ${backend.name}`, () => {
    it('fails only the bad row when one create of a batch cannot be stored', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const first = held.create({ id: 1n, name: 'hold' });
      // PostgreSQL text cannot hold U+0000: the whole batch statement fails on it.
      const outcomes = Promise.allSettled([
        held.create({ id: 2n, name: 'good' }),
        held.create({ id: 3n, name: 'bad\u0000row' }),
        held.create({ id: 4n, name: 'good too', tag: 't' }),
        held.create({ id: 2n, name: 'good' }),
      ]);
      held.release();
      await first;
      const [good, bad, goodToo, again] = await outcomes;
      assert.equal((reasonOf(bad) as { code?: string }).code, '22021');
      assert.deepStrictEqual(goodToo, { status: 'fulfilled', value: { created: true } });
      // The two creates of id 2 went on their own, one after the other.
      assert.deepStrictEqual(
        [good, again],
        [
          { status: 'fulfilled', value: { created: true } },
          { status: 'fulfilled', value: { created: false, existing: { name: 'good' } } },
        ],
      );
      assert.deepStrictEqual(await storedIds(client, table), ['1', '2', '4']);
    });

    it('sends the creates of a batch that failed on a bad row again one statement at a time when maxInFlight is 1', async (t) => {
      // A batch of 60 with one poison row once became 60 statements in flight together.
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const gauged = gaugedClient(client);
      const held = heldRepository(gauged.client, table);
      const first = held.create({ id: 1n, name: 'hold' });
      const batch = Array.from({ length: 60 }, (_, i) =>
        held.create({ id: BigInt(100 + i), name: i === 30 ? 'poison\u0000' : `plant ${i}` }),
      );
      held.release();
      const outcomes = await settleAll([first, ...batch], 'the batch and its retries');
      assert.equal(gauged.gauge.most, 1, 'statements in flight at once');
      // The held one, the batch, then each of its 60 creates alone.
      assert.equal(gauged.gauge.statements, 62);
      assert.equal((reasonOf(outcomes[31]) as { code?: string }).code, '22021');
      const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.equal(created.length, 60);
      assert.equal((await storedIds(client, table)).length, 60);
    });

    it('never has more statements in flight than maxInFlight when concurrent batches fail on bad rows', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const gauged = gaugedClient(client);
      const repository = createPostgresRepository(gauged.client, { ...table, maxInFlight: 2 });
      // Every tenth a poison row: every batch formed while others are in flight fails.
      const outcomes = await settleAll(
        Array.from({ length: 200 }, (_, i) =>
          repository.create(
            { id: BigInt(i), name: i % 10 === 5 ? `poison ${i}\u0000` : `plant ${i}` },
            { signal: signal() },
          ),
        ),
        'creates with poison rows',
      );
      assert.ok(gauged.gauge.most <= 2, `${gauged.gauge.most} statements in flight at once`);
      for (const [i, outcome] of outcomes.entries()) {
        if (i % 10 === 5) assert.equal((reasonOf(outcome) as { code?: string }).code, '22021');
        else assert.deepStrictEqual(outcome, { status: 'fulfilled', value: { created: true } });
      }
    });
  });
}

skipWithoutBackends();

if (hasServer) {
  describe('createPostgresRepository after a failed batch on the PostgreSQL server', () => {
    it('fails the batch as unavailable, sending it once, when the server is read-only as a standby is', async (t) => {
      const { table } = await serverTable(t, 4);
      const held = heldRepository(readOnlyPool(t, 4), table);
      const first = held.create({ id: 1n, name: 'held' });
      const batch = Array.from({ length: 20 }, (_, i) =>
        held.create({ id: BigInt(10 + i), name: 'b' }),
      );
      held.release();
      const outcomes = await settleAll([first, ...batch], 'creates on a read-only server');
      assert.equal(held.statements.length, 2, 'the held create and the batch, once each');
      const reasons = outcomes.map(reasonOf);
      const [lone, shared] = reasons;
      assertUnavailable(lone, (lone as Error).cause);
      assert.equal(((shared as Error).cause as { code?: string }).code, '25006');
      for (const reason of reasons.slice(1)) assert.equal(reason, shared, 'one error per batch');
    });

    it('fails the batch as unavailable, sending it once, when statement_timeout cancels it', async (t) => {
      const { pool, table } = await serverTable(t, 4);
      const slow = poolFor(t, 4, '-c statement_timeout=300');
      // An open transaction holds id 15: the batch that inserts it waits, then is cancelled.
      const holder = await holdRow(pool, table, 15);
      try {
        const held = heldRepository(slow, table);
        const first = held.create({ id: 1n, name: 'held' });
        const batch = Array.from({ length: 10 }, (_, i) =>
          held.create({ id: BigInt(10 + i), name: 'b' }),
        );
        held.release();
        const outcomes = await settleAll([first, ...batch], 'creates behind a lock');
        assert.deepStrictEqual(outcomes[0], { status: 'fulfilled', value: { created: true } });
        assert.deepStrictEqual(
          held.inserts().map((statement) => idsOf(statement.values).length),
          [1, 10],
        );
        const reasons = outcomes.slice(1).map(reasonOf);
        assertUnavailable(reasons[0], (reasons[0] as Error).cause);
        assert.equal(((reasons[0] as Error).cause as { code?: string }).code, '57014');
        for (const reason of reasons) assert.equal(reason, reasons[0]);
      } finally {
        await holder.end();
      }
    });
  });
}

if (hasServer) {
  describe('createPostgresRepository after a failed batch on a pg Pool of the PostgreSQL server', () => {
    it('stops, fails the rest as unavailable and closes the connection when its backend is terminated during the row-by-row retry', async (t) => {
      const { pool: admin, table } = await serverTable(t, 1);
      const pool = poolFor(t, 2);
      // The pool as it is, but its lent connections count their statements, and the backend of
      // the one that sends a third is terminated just before it goes.
      let statements = 0;
      const lending = {
        query: pool.query.bind(pool),
        get waitingCount() {
          return pool.waitingCount;
        },
        async connect() {
          const connection = (await pool.connect()) as pg.PoolClient & { processID: number };
          return {
            async query(text: string, values: unknown[]) {
              statements += 1;
              if (statements === 3) {
                await admin.query('SELECT pg_terminate_backend($1)', [connection.processID]);
              }
              return connection.query(text, values);
            },
            release: (error?: Error | boolean) => connection.release(error),
            on: (event: 'error', listener: (error: Error) => void) =>
              connection.on(event, listener),
            off: (event: 'error', listener: (error: Error) => void) =>
              connection.off(event, listener),
          };
        },
      };
      const repository = createPostgresRepository(lending, { ...table, maxInFlight: 1 });
      const create = (plant: NewPlant) => repository.create(plant, { signal: signal() });
      const first = create({ id: 1n, name: 'first' });
      // 2: the batch, on its poison row; 3: its first create alone, on a terminated backend.
      const batch = [create({ id: 2n, name: 'poison\u0000' }), create({ id: 3n, name: 'b' })];
      const outcomes = await settleAll([first, ...batch], 'a terminated backend');
      assert.deepStrictEqual(outcomes[0], { status: 'fulfilled', value: { created: true } });
      assert.equal(statements, 3);
      const [poison, other] = outcomes.slice(1).map(reasonOf);
      assert.equal(poison, other);
      assert.ok(poison instanceof PlantApiError && poison.code === 'ERR_STORE_UNAVAILABLE');
      assert.equal(pool.totalCount, 0, 'the broken connection is closed, not kept');
      // The pool serves again on a new connection.
      assert.deepStrictEqual(await create({ id: 3n, name: 'b' }), { created: true });
    });
  });
}

/** Errors of an unavailable database, as the drivers raise them. */
const UNAVAILABLE: Array<[string, () => unknown]> = [
  ...['08006', '08001', '53300', '57P01', '57P03', '25006'].map((code): [string, () => unknown] => [
    `SQLSTATE ${code}`,
    () => Object.assign(new Error(`server said ${code}`), { code }),
  ]),
  [
    'statement_timeout (57014)',
    () =>
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
  ],
  [
    'lock_timeout (55P03)',
    () => Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }),
  ],
  ['a client that was closed', () => new Error('Client was closed and is not queryable')],
  ['a pool that was ended', () => new Error('Cannot use a pool after calling end on the pool')],
  [
    'a refused socket',
    () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
        errno: -111,
        syscall: 'connect',
      }),
  ],
  [
    'a reset socket',
    () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }),
  ],
  ['a connection lost mid-query', () => new Error('Connection terminated unexpectedly')],
  ['a connect timeout', () => new Error('timeout exceeded when trying to connect')],
];

/** Errors that are neither about a row nor about reaching the database. */
const OTHER: Array<[string, () => unknown]> = [
  ['an error without a SQLSTATE', () => new Error('boom')],
  ['a numeric code', () => Object.assign(new Error('odd'), { code: 42 })],
  ['a code that is no SQLSTATE', () => Object.assign(new Error('odd'), { code: 'E_ODD_ONE' })],
  ['a missing table', () => Object.assign(new Error('no relation'), { code: '42P01' })],
  ['a serialization failure', () => Object.assign(new Error('retry'), { code: '40001' })],
  ['a value that is no Error', () => 'a string'],
];

/**
 * A repository with one statement in flight at a time over a scripted client whose first
 * statement (a lone create) waits for `release` and succeeds, and whose later ones answer
 * `answer(call)`; every call recorded. `create(id)` makes one named 'a' with a signal that never
 * fires.
 */
function heldScript(answer: (call: number, values: unknown[]) => unknown) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const script = scriptedClient(async (_text, values, call) => {
    if (call === 1) {
      await gate;
      return { rows: idsOf(values).map((id) => ({ id })) };
    }
    return answer(call, values);
  });
  const repository = createPostgresRepository(script.client, { maxInFlight: 1 });
  const create = (id: bigint) => repository.create({ id, name: 'a' }, { signal: signal() });
  return { calls: script.calls, release, repository, create };
}

describe('createPostgresRepository after a failed statement', () => {
  for (const [title, makeError] of UNAVAILABLE) {
    it(`fails every create of the batch with one ERR_STORE_UNAVAILABLE, sending nothing more, when the statement fails with ${title}`, async () => {
      const failure = makeError();
      const { calls, release, create } = heldScript(() => Promise.reject(failure));
      const first = create(1n);
      const batch = [2n, 3n, 4n, 5n].map(create);
      release();
      const outcomes = await settleAll([first, ...batch], title);
      assert.deepStrictEqual(outcomes[0], { status: 'fulfilled', value: { created: true } });
      assert.equal(calls.length, 2);
      const reasons = outcomes.slice(1).map(reasonOf);
      assertUnavailable(reasons[0], failure);
      for (const reason of reasons) assert.equal(reason, reasons[0]);
    });
  }

  for (const [title, makeError] of OTHER) {
    it(`fails every create of the batch with the driver's own error, sending nothing more, when the statement fails with ${title}`, async () => {
      const failure = makeError();
      const { calls, release, create } = heldScript(() => Promise.reject(failure));
      const first = create(1n);
      const batch = [2n, 3n, 4n].map(create);
      release();
      const outcomes = await settleAll([first, ...batch], title);
      assert.equal(calls.length, 2);
      for (const outcome of outcomes.slice(1)) assert.equal(reasonOf(outcome), failure);
    });
  }

  it("rejects a lone create with the driver's own error when a query rejects or throws", async () => {
    const failure = Object.assign(new Error('no relation'), { code: '42P01' });
    const rejecting = scriptedClient(async () => {
      throw failure;
    });
    const throwing: PostgresClient = {
      query() {
        throw failure;
      },
    };
    for (const client of [rejecting.client, throwing]) {
      await assert.rejects(
        createPostgresRepository(client).create({ id: 1n, name: 'a' }, { signal: signal() }),
        (error) => error === failure,
      );
    }
  });

  it('fails the batch without sending it again when the driver throws instead of rejecting', async () => {
    const failure = new TypeError('driver bug');
    const { calls, release, create } = heldScript(() => {
      throw failure;
    });
    const first = create(1n);
    const batch = [2n, 3n, 4n].map(create);
    release();
    const outcomes = await settleAll([first, ...batch], 'a throwing driver');
    assert.equal(calls.length, 2);
    for (const outcome of outcomes.slice(1)) assert.equal(reasonOf(outcome), failure);
  });

  it('stops sending and fails the rest as unavailable when the connection drops during the row-by-row retry', async () => {
    const bad = Object.assign(new Error('invalid byte sequence'), { code: '22021' });
    const dropped = new Error('Connection terminated unexpectedly');
    const { calls, release, create } = heldScript((call, values) => {
      // 2: the batch, on a bad row; 3 and 4: its first two creates alone; 5: the line drops.
      if (call === 2) return Promise.reject(bad);
      if (call === 5) return Promise.reject(dropped);
      return Promise.resolve({ rows: idsOf(values).map((id) => ({ id })) });
    });
    const first = create(1n);
    const batch = [2n, 3n, 4n, 5n, 6n].map(create);
    release();
    const outcomes = await settleAll([first, ...batch], 'a drop during the retry');
    assert.equal(calls.length, 5);
    assert.deepStrictEqual(
      outcomes.slice(0, 3),
      Array(3).fill({ status: 'fulfilled', value: { created: true } }),
    );
    const reasons = outcomes.slice(3).map(reasonOf);
    assertUnavailable(reasons[0], dropped);
    for (const reason of reasons) assert.equal(reason, reasons[0]);
  });

  it('fails only the bad rows and goes on when several creates of a retried batch are bad', async () => {
    const bad = (id: unknown) =>
      Object.assign(new Error(`check violated by ${String(id)}`), { code: '23514' });
    const { calls, release, create } = heldScript((call, values) => {
      const ids = idsOf(values);
      if (ids.includes('3') || ids.includes('5')) return Promise.reject(bad(ids[0]));
      return Promise.resolve({ rows: ids.map((id) => ({ id })) });
    });
    const first = create(1n);
    const batch = [2n, 3n, 4n, 5n, 6n].map(create);
    release();
    const outcomes = await settleAll([first, ...batch], 'two bad rows');
    assert.equal(calls.length, 7);
    assert.deepStrictEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
  });

  it('keeps the creates that arrive during the row-by-row retry waiting, one statement in flight, when maxInFlight is 1', async () => {
    let now = 0;
    let most = 0;
    const bad = Object.assign(new Error('invalid byte sequence'), { code: '22021' });
    const { calls, release, create } = heldScript(async (call, values) => {
      now += 1;
      most = Math.max(most, now);
      await new Promise((resolve) => setTimeout(resolve, 2));
      now -= 1;
      if (call === 2) throw bad;
      return { rows: idsOf(values).map((id) => ({ id })) };
    });
    const first = create(1n);
    const batch = [2n, 3n, 4n].map(create);
    release();
    // More creates while the failed batch's creates go again, one by one.
    await new Promise((resolve) => setTimeout(resolve, 3));
    const later = [7n, 8n, 9n].map(create);
    const outcomes = await settleAll([first, ...batch, ...later], 'creates during retries');
    assert.equal(most, 1, 'statements in flight at once');
    assert.deepStrictEqual(
      outcomes,
      Array(7).fill({ status: 'fulfilled', value: { created: true } }),
    );
    // The later creates waited for the retries, then went together.
    assert.deepStrictEqual(calls.at(-1)?.values[0], ['7', '8', '9']);
  });

  it('sends no create of a failed batch again once its signal has fired', async () => {
    const bad = Object.assign(new Error('invalid byte sequence'), { code: '22021' });
    const controller = new AbortController();
    const { calls, release, repository } = heldScript((call, values) => {
      // The batch fails; while its first create goes alone, the second one's deadline passes.
      if (call === 2) return Promise.reject(bad);
      if (call === 3) controller.abort(new Error('deadline'));
      return Promise.resolve({ rows: idsOf(values).map((id) => ({ id })) });
    });
    const first = repository.create({ id: 1n, name: 'a' }, { signal: signal() });
    const batch = [
      repository.create({ id: 2n, name: 'a' }, { signal: signal() }),
      repository.create({ id: 3n, name: 'a' }, { signal: controller.signal }),
      repository.create({ id: 4n, name: 'a' }, { signal: signal() }),
    ];
    release();
    const outcomes = await settleAll([first, ...batch], 'a retry whose signal fired');
    assert.deepStrictEqual(
      calls.slice(2).map((call) => idsOf(call.values)),
      [['2'], ['4']],
    );
    assert.match(String((reasonOf(outcomes[2]) as Error).message), /deadline/);
  });
});
