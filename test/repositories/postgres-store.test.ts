/**
 * createPlantStore over createPostgresRepository: what the client is answered when the
 * database stores, fails or is slow.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPlantStore, PlantApiError } from '../../lib/index.ts';
import { createPostgresRepository } from '../../lib/postgres.ts';
import {
  answer,
  backends,
  hasServer,
  heldRepository,
  idsOf,
  post,
  qualified,
  scriptedClient,
  skipWithoutBackends,
  storedIds,
  tableFor,
  verifier,
} from './postgres-backends.ts';
import { readOnlyPool, serverTable } from './postgres-server.ts';
import { withDeadline } from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

for (const backend of backends) {
  describe(`createPlantStore with createPostgresRepository on ${backend.name}`, () => {
    it('answers 200, 200 on replay and 409 on conflict when plants are stored in the database', async (t) => {
      const client = await backend.client();
      const { table, repository } = await tableFor(t, client);
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
    });

    it('answers 503 to both when the deadline passes, never sends the waiting one, and lets the sent one land', async (t) => {
      const client = await backend.client();
      const { table } = await tableFor(t, client);
      const held = heldRepository(client, table);
      const store = createPlantStore({
        repository: held.repository,
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
      const ids = () => storedIds(client, table);
      // The one already sent lands (its retry will be an idempotent replay) ...
      for (let tries = 0; tries < 250 && (await ids()).length === 0; tries++) await sleep(20);
      await sleep(50);
      assert.deepStrictEqual(await ids(), ['1']);
      // ... and the one that waited was never sent.
      assert.deepStrictEqual(
        held.inserts().map((statement) => idsOf(statement.values)),
        [['1']],
      );
    });
  });
}

skipWithoutBackends();

describe('createPlantStore with createPostgresRepository', () => {
  it('answers 500 internal error and reports the cause when the database fails otherwise', async () => {
    const failure = Object.assign(new Error('relation "plants" does not exist'), {
      code: '42P01',
    });
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

  it('answers 503 with Retry-After, reporting once per failed statement, when the database is unavailable', async () => {
    // A failover once answered 500, which no client may retry; the replay makes a retry safe.
    const failure = Object.assign(
      new Error('terminating connection due to administrator command'),
      {
        code: '57P01',
      },
    );
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client, calls } = scriptedClient(async (_text, _values, call) => {
      if (call === 1) await held;
      throw failure;
    });
    const reported: unknown[] = [];
    const store = createPlantStore({
      repository: createPostgresRepository(client, { maxInFlight: 1 }),
      verifier,
      onError: (error) => reported.push(error),
    });
    const responses = Array.from({ length: 10 }, (_, i) =>
      store.fetch(post(`{"id": ${i}, "name": "a"}`)),
    );
    release();
    for (const response of await withDeadline(Promise.all(responses), 'the answers')) {
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '1');
      assert.deepStrictEqual(await assertMatchesOpenApi(response), {
        error: 503,
        message: 'the store is unavailable for now; retrying the request is safe',
      });
    }
    // The lone first create, then the nine that waited, together: two statements, two reports.
    assert.equal(calls.length, 2);
    assert.equal(reported.length, 2);
    for (const error of reported) {
      assert.ok(error instanceof PlantApiError);
      assert.equal(error.code, 'ERR_STORE_UNAVAILABLE');
      assert.equal(error.cause, failure);
    }
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

if (hasServer) {
  describe('createPlantStore with createPostgresRepository on a pg Pool of the PostgreSQL server', () => {
    it("never sends a create whose deadline passed while it waited for one of the pool's connections", async (t) => {
      // Such a create was once answered 503 and written half a second later.
      const { pool, table } = await serverTable(t, 1);
      const busy = await pool.connect();
      let released = false;
      try {
        const store = createPlantStore({
          repository: createPostgresRepository(pool, table),
          verifier,
          timeoutMs: 150,
          onError: () => {},
        });
        const response = await withDeadline(
          store.fetch(post('{"id": 1, "name": "late"}')),
          'the answer at the deadline',
        );
        assert.equal(response.status, 503);
        assert.equal(pool.waitingCount, 1, 'the create waits for the pool');
        busy.release();
        released = true;
        // The pool lends the connection; the create is over, so it goes back unused.
        for (let tries = 0; tries < 100 && pool.idleCount < 1; tries++) await sleep(10);
        await sleep(100);
        const { rows } = await pool.query(`SELECT id FROM ${qualified(table)}`);
        assert.deepStrictEqual(rows, []);
        assert.equal(pool.totalCount, 1, 'the connection was kept, not closed');
      } finally {
        if (!released) busy.release();
      }
    });

    it('answers 503 with Retry-After when the server is read-only, as a standby is', async (t) => {
      const { table } = await serverTable(t, 2);
      const readOnly = readOnlyPool(t, 2);
      const reported: unknown[] = [];
      const store = createPlantStore({
        repository: createPostgresRepository(readOnly, { ...table, prepare: true }),
        verifier,
        onError: (error) => reported.push(error),
      });
      const response = await store.fetch(post('{"id": 1, "name": "a"}'));
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '1');
      await assertMatchesOpenApi(response);
      assert.equal(((reported[0] as Error).cause as { code?: string }).code, '25006');
      // The connection that found a standby is closed: the next one may reach the new primary.
      assert.equal(readOnly.totalCount, 0);
    });
  });
}
