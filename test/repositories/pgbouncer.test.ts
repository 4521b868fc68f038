/**
 * `prepare: true` behind a real PgBouncer in transaction mode, the pooler that loses prepared
 * statements (before 1.21, or without `max_prepared_statements`): each transaction may run on
 * another server connection, where a name is unknown or already taken. Runs when DATABASE_URL
 * is set and Debian's `pgbouncer` is installed (`apt-get install pgbouncer`); skips otherwise.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPostgresRepository, ensurePlantTable } from '../../lib/postgres.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find(
  (path) => spawnSync(path, ['--version']).status === 0,
);
const SKIP =
  DATABASE_URL === undefined || DATABASE_URL === ''
    ? 'needs DATABASE_URL'
    : PGBOUNCER === undefined
      ? 'needs pgbouncer (apt-get install pgbouncer)'
      : false;

/** PgBouncer in transaction mode in front of DATABASE_URL's server, on a free port. */
async function startPgBouncer(): Promise<{ url: string; stop: () => void }> {
  const target = new URL(DATABASE_URL as string);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pgbouncer-'));
  // PgBouncer will not run as root: then it runs as postgres, which must reach these files.
  chmodSync(dir, 0o777);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const database = target.pathname.slice(1) || 'postgres';
  const user = decodeURIComponent(target.username) || 'postgres';
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 4',
      '',
    ].join('\n'),
  );
  const ini = join(dir, 'pgbouncer.ini');
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = asRoot
    ? spawn('su', ['postgres', '-s', '/bin/sh', '-c', `exec ${PGBOUNCER} ${ini}`], {
        stdio: 'ignore',
      })
    : spawn(PGBOUNCER as string, [ini], { stdio: 'ignore' });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  for (let tries = 0; tries < 100; tries++) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });
    if (listening) return { url: `postgres://${user}@127.0.0.1:${port}/${database}`, stop };
    await sleep(50);
  }
  stop();
  throw new Error('pgbouncer did not listen within 5 s');
}

describe('createPostgresRepository with prepare: true behind PgBouncer in transaction mode', () => {
  it(
    'answers every create, sending statements unnamed once the pooler loses a prepared one',
    { skip: SKIP },
    async () => {
      const bouncer = await startPgBouncer();
      const pool = new pg.Pool({ connectionString: bouncer.url, max: 10 });
      const table = { table: `plant_store_pgbouncer_${process.pid}_${Date.now().toString(36)}` };
      try {
        await ensurePlantTable(pool, table);
        const repository = createPostgresRepository(pool, { ...table, prepare: true });
        // Ten connections of the pool over four of the server's: names prepared on one server
        // connection are unknown or taken on another.
        for (let round = 0; round < 10; round++) {
          const outcomes = await Promise.all(
            Array.from({ length: 30 }, (_, i) =>
              repository.create(
                { id: BigInt(round * 100 + (i % 20)), name: `n${i % 20}` },
                // A signal per create, as the store hands each create its own.
                { signal: new AbortController().signal },
              ),
            ),
          );
          // Twenty ids, ten of them twice: twenty stored, ten replays.
          assert.equal(outcomes.filter((outcome) => outcome.created).length, 20);
          assert.equal(outcomes.filter((outcome) => !outcome.created).length, 10);
        }
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table.table}`);
        assert.deepEqual(rows, [{ n: 200 }]);
      } finally {
        await pool.query(`DROP TABLE IF EXISTS ${table.table}`);
        await pool.end();
        bouncer.stop();
      }
    },
  );
});
