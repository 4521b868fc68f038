import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createPlantClient } from '../../lib/client.ts';
import { READY, startCli } from '../support/cli-helpers.ts';
import { cuttingProxy } from '../support/client-helpers.ts';
import { type Child, withDeadline } from '../support/node-helpers.ts';

// The standalone server runs as a child process, so it needs a PostgreSQL server other
// processes can reach; PGlite lives inside one process.
const DATABASE_URL = process.env.DATABASE_URL;
const skip =
  DATABASE_URL === undefined || DATABASE_URL === ''
    ? 'DATABASE_URL is not set: these tests need a PostgreSQL server the standalone server can reach; .ci/run sets it'
    : false;
const TOKEN = 'client-postgres-token';
const TOP = 9223372036854775807n;
const RETRY = { attempts: 5, baseDelayMs: 50, maxDelayMs: 500 };

describe('plant-store/client against the standalone server on PostgreSQL', { skip }, () => {
  const children: Child[] = [];
  const stops: Array<() => Promise<void>> = [];
  const schemas: string[] = [];
  let admin: pg.Pool | undefined;
  after(async () => {
    for (const child of children) child.kill();
    for (const stop of stops) await stop();
    if (admin !== undefined) {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });

  /** The standalone server on a fresh schema of its own. */
  async function start(env: Record<string, string> = {}) {
    admin ??= new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const schema = `plant_store_client_${process.pid}_${Date.now()}_${schemas.length}`;
    schemas.push(schema);
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const url = new URL(DATABASE_URL as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const child = startCli(
      { PORT: '0', PLANT_STORE_TOKENS: TOKEN, DATABASE_URL: url.href, ...env },
      children,
    );
    const [, origin, port] = await child.line(READY, 'the readiness line');
    return { origin: origin as string, port: Number(port), schema };
  }

  async function rows(schema: string) {
    const { rows } = await (admin as pg.Pool).query(
      `SELECT id::text AS id, name, tag FROM "${schema}".plants ORDER BY id`,
    );
    return rows as Array<{ id: string; name: string; tag: string | null }>;
  }

  it('stores one row and resolves to the plant when the connection is cut after the create ran', async () => {
    const { port, schema } = await start();
    const proxy = await cuttingProxy(port, 1);
    stops.push(() => proxy.close());
    const client = createPlantClient({ baseUrl: proxy.url, token: TOKEN, retry: RETRY });
    const plant = await withDeadline(
      client.createPlant({ id: TOP, name: 'Monstera', tag: 'aroid' }),
      'the create through a cut connection',
    );
    assert.deepEqual(plant, { name: 'Monstera', tag: 'aroid' });
    assert.equal(proxy.cuts(), 1);
    assert.deepEqual(await rows(schema), [{ id: String(TOP), name: 'Monstera', tag: 'aroid' }]);
  });

  it('stores one row and resolves to the plant when the first attempt gets a 503 while the table is locked', async () => {
    const { origin, schema } = await start({ PLANT_STORE_TIMEOUT_MS: '300' });
    // The create waits on the lock past the server's deadline (503); the lock goes after it.
    const locker = await (admin as pg.Pool).connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE "${schema}".plants IN ACCESS EXCLUSIVE MODE`);
    let unlocked = false;
    const statuses: number[] = [];
    const client = createPlantClient({
      baseUrl: origin,
      token: TOKEN,
      retry: RETRY,
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        if (response.status === 503 && !unlocked) {
          unlocked = true;
          await locker.query('COMMIT');
          locker.release();
        }
        return response;
      },
    });
    try {
      const plant = await withDeadline(
        client.createPlant({ id: String(TOP), name: 'Monstera' }),
        'the create through a 503',
      );
      assert.deepEqual(plant, { name: 'Monstera' });
    } finally {
      if (!unlocked) {
        await locker.query('ROLLBACK');
        locker.release();
      }
    }
    assert.equal(statuses[0], 503);
    assert.equal(statuses.at(-1), 200);
    assert.deepEqual(await rows(schema), [{ id: String(TOP), name: 'Monstera', tag: null }]);
  });
});
