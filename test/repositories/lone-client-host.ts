/**
 * A host that hands the PostgreSQL repository one `pg` `Client`, not a pool, served over
 * node:http: run as a child process, so a test can end the client's backend and see whether
 * the host survives. Reads `DATABASE_URL` and `PLANT_STORE_TEST_TABLE`; prints
 * `listening <url> <backend pid>` once it serves, and `reported <code> <cause>` for each error
 * its store reports.
 *
 * @module
 */

import pg from 'pg';
import { createPlantStore, createStaticTokenVerifier, PlantApiError } from '../../lib/index.ts';
import { serve } from '../../lib/node.ts';
import { createPostgresRepository } from '../../lib/postgres.ts';

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
const store = createPlantStore({
  repository: createPostgresRepository(client, { table: process.env.PLANT_STORE_TEST_TABLE }),
  verifier: createStaticTokenVerifier(['t0ken']),
  onError: (error) => {
    const code = error instanceof PlantApiError ? error.code : 'other';
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
    process.stdout.write(`reported ${code} ${cause}\n`);
  },
});
const server = await serve({ fetch: store.fetch, port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${server.url} ${rows[0]?.pid}\n`);
