/**
 * createPostgresRepository when PostgreSQL is up but will not answer in time (a statement or
 * lock timeout), and when the host hands it a lone `pg` `Client` that breaks or is closed: each
 * is a `503` with `Retry-After`, never a `500` and never the end of the host's process.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPlantStore, PlantApiError } from '../../lib/index.ts';
import { createPostgresRepository } from '../../lib/postgres.ts';
import { cliEnv, ROOT } from '../support/cli-helpers.ts';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import { DATABASE_URL, hasServer, post, storedIds, verifier } from './postgres-backends.ts';
import { holdRow, poolFor, serverTable } from './postgres-server.ts';

/** Asserts a `503` with `Retry-After` and the Error body the OpenAPI document declares. */
async function assertUnavailable(response: Response): Promise<void> {
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('retry-after'), '1');
  assert.deepStrictEqual(await assertMatchesOpenApi(response), {
    error: 503,
    message: 'the store is unavailable for now; retrying the request is safe',
  });
}

/** Asserts that the store reported one `ERR_STORE_UNAVAILABLE`, and returns its cause. */
function reportedCause(reported: unknown[]): unknown {
  assert.equal(reported.length, 1, String(reported));
  const [error] = reported;
  assert.ok(error instanceof PlantApiError, String(error));
  assert.equal(error.code, 'ERR_STORE_UNAVAILABLE');
  return error.cause;
}

/** A lone pg Client of the test's own, connected, ended when the file ends. */
async function loneClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  after(() => client.end().catch(() => {}));
  return client;
}

if (hasServer) {
  describe('createPlantStore with createPostgresRepository on a pg Pool of the PostgreSQL server', () => {
    for (const [setting, code] of [
      ['statement_timeout', '57014'],
      ['lock_timeout', '55P03'],
    ] as const) {
      it(`answers 503 with Retry-After and keeps its connection when ${setting} cancels a create that waits on a row another transaction holds`, async (t) => {
        const { pool, table } = await serverTable(t, 1);
        const limited = poolFor(t, 1, `-c ${setting}=200`);
        const holder = await holdRow(pool, table, 1);
        try {
          const reported: unknown[] = [];
          const store = createPlantStore({
            repository: createPostgresRepository(limited, table),
            verifier,
            onError: (error) => reported.push(error),
          });
          const body = '{"id": 1, "name": "a"}';
          await assertUnavailable(await withDeadline(store.fetch(post(body)), 'the answer'));
          assert.equal((reportedCause(reported) as { code?: string }).code, code);
          // The server cancelled the statement, not the session: the connection stays pooled.
          assert.equal(limited.totalCount, 1, 'the connection was kept');
          await holder.rollback();
          assert.equal((await store.fetch(post(body))).status, 200, 'the retry');
        } finally {
          await holder.end();
        }
      });
    }
  });

  describe('createPostgresRepository on a lone pg Client of the PostgreSQL server', () => {
    const children: Child[] = [];
    after(() => {
      for (const child of children) child.kill();
    });

    it("keeps the host's process serving, and answers 503 with Retry-After, when the Client's backend is terminated", async (t) => {
      // pg emits 'error' on a Client whose connection drops; unheard, it ended the host.
      const { pool, table } = await serverTable(t, 1);
      const host = spawnChild(
        process.execPath,
        ['--import', 'tsx', 'test/repositories/lone-client-host.ts'],
        cliEnv({ DATABASE_URL: DATABASE_URL as string, PLANT_STORE_TEST_TABLE: table.table }),
        ROOT,
      );
      children.push(host);
      const [, url, pid] = (await host.line(/^listening (\S+) (\d+)$/, 'the host to serve')) as [
        string,
        string,
        string,
      ];
      const create = (id: number) =>
        fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
          body: JSON.stringify({ id, name: 'a' }),
        });
      assert.equal((await create(1)).status, 200);
      // Terminated while idle: the error comes with no statement to reject.
      await pool.query('SELECT pg_terminate_backend($1)', [Number(pid)]);
      await sleep(300);
      await assertUnavailable(await withDeadline(create(2), 'the answer after the termination'));
      assert.equal(host.process.exitCode, null, `the host exited: ${host.stderr()}`);
      assert.match(host.stdout(), /^reported ERR_STORE_UNAVAILABLE .+$/m);
      assert.deepStrictEqual(await storedIds(pool, table), ['1']);
    });

    it('answers 503 with Retry-After when the Client was closed', async (t) => {
      const { table } = await serverTable(t, 1);
      const client = await loneClient();
      const reported: unknown[] = [];
      const store = createPlantStore({
        repository: createPostgresRepository(client, table),
        verifier,
        onError: (error) => reported.push(error),
      });
      await client.end();
      await assertUnavailable(await store.fetch(post('{"id": 1, "name": "a"}')));
      assert.match(String((reportedCause(reported) as Error).message), /^Client was closed/);
    });

    it('never sends a create whose deadline passed while another statement held the Client', async (t) => {
      // pg queues a Client's statements itself, where a create answered 503 could not be held back.
      const { pool, table } = await serverTable(t, 2);
      const holder = await holdRow(pool, table, 1);
      try {
        const store = createPlantStore({
          repository: createPostgresRepository(await loneClient(), table),
          verifier,
          timeoutMs: 200,
          onError: () => {},
        });
        const responses = await withDeadline(
          Promise.all([1, 2, 3, 4].map((id) => store.fetch(post(`{"id": ${id}, "name": "a"}`)))),
          'the answers at the deadline',
        );
        assert.deepStrictEqual(
          responses.map((response) => response.status),
          [503, 503, 503, 503],
        );
        await holder.rollback();
        // The first create, sent before its deadline, lands once the row is free; no other.
        for (let tries = 0; tries < 100; tries++) {
          if ((await storedIds(pool, table)).length > 0) break;
          await sleep(20);
        }
        await sleep(200);
        assert.deepStrictEqual(await storedIds(pool, table), ['1']);
      } finally {
        await holder.end();
      }
    });

    it("listens to the Client's 'error' once, however many repositories share it", async (t) => {
      const { pool, table } = await serverTable(t, 1);
      const client = await loneClient();
      const before = client.listenerCount('error');
      const repositories = Array.from({ length: 20 }, () =>
        createPostgresRepository(client, table),
      );
      assert.equal(client.listenerCount('error'), before + 1);
      const signal = new AbortController().signal;
      await repositories[0]?.create({ id: 1n, name: 'a' }, { signal });
      assert.deepStrictEqual(await storedIds(pool, table), ['1']);
    });
  });
}

/**
 * A server that speaks just enough of PostgreSQL's protocol to finish a connection's start-up,
 * then ends it in the same packet, as a server shutting down can: AuthenticationOk,
 * ReadyForQuery and a FATAL 57P01 ErrorResponse in one write.
 */
async function serverThatEndsNewConnections(): Promise<{ port: number; close(): Promise<void> }> {
  const message = (type: string, body: Buffer) => {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const fields = [
    'SFATAL',
    'VFATAL',
    'C57P01',
    'Mterminating connection due to administrator command',
  ];
  const packet = Buffer.concat([
    message('R', Buffer.from([0, 0, 0, 0])),
    message('Z', Buffer.from('I')),
    message('E', Buffer.from(`${fields.join('\0')}\0\0`, 'latin1')),
  ]);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    // The start-up message is the first thing a client sends; whatever it holds, answer once.
    socket.once('data', () => socket.end(packet));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('createPostgresRepository on a pg Pool', () => {
  it('answers 503 with Retry-After, and the process goes on, when the server ends a new connection in the packet that finished it', async (t) => {
    // pg lends a new connection through a promise: its 'error' came before any listener could.
    const server = await serverThatEndsNewConnections();
    t.after(() => server.close());
    const pool = new pg.Pool({ host: '127.0.0.1', port: server.port, user: 'u', database: 'd' });
    pool.on('error', () => {});
    t.after(() => pool.end());
    const reported: unknown[] = [];
    const store = createPlantStore({
      repository: createPostgresRepository(pool),
      verifier,
      onError: (error) => reported.push(error),
    });
    for (let id = 1; id <= 3; id++) {
      const response = await withDeadline(
        store.fetch(post(`{"id": ${id}, "name": "a"}`)),
        'the answer',
      );
      await assertUnavailable(response);
    }
    assert.equal(reported.length, 3);
  });
});

describe('createPostgresRepository', () => {
  it('throws a TypeError naming Pool when maxInFlight is above 1 for a lone pg Client', () => {
    const client = new pg.Client();
    assert.throws(() => createPostgresRepository(client, { maxInFlight: 4 }), {
      name: 'TypeError',
      message:
        'createPostgresRepository: a lone pg Client runs one statement at a time, so option maxInFlight must be 1 with it; pass a Pool for more',
    });
    assert.doesNotThrow(() => createPostgresRepository(client, { maxInFlight: 1 }));
  });
});
