/**
 * plant-store on PostgreSQL behind `plant-store/node`, with a graceful shutdown: on SIGTERM or
 * SIGINT the server stops accepting and lets in-flight requests finish, then the pool closes its
 * connections, so an idle process exits at once instead of when the pool's idle timer fires.
 * `docs/storage.md` shows this file as it is (below this comment); `test/readme.test.ts` checks
 * both.
 *
 * `DATABASE_URL=postgres://... API_TOKEN=s3cr3t npx tsx examples/postgres-shutdown.ts`
 * (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import pg from 'pg';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import { serve } from 'plant-store/node';
import { createPostgresRepository, ensurePlantTable } from 'plant-store/postgres';

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  connectionTimeoutMillis: 5_000, // to connect, or to wait for a free connection
  statement_timeout: 5_000, // PostgreSQL cancels a statement that runs longer
  query_timeout: 8_000, // the client stops waiting (both below the store's 10 s deadline)
});
// A connection the server or the network dropped while idle: the pool replaces it on demand.
pool.on('error', (error) => console.error(error));
await ensurePlantTable(pool); // CREATE TABLE IF NOT EXISTS, safe from many processes at once

const store = createPlantStore({
  repository: createPostgresRepository(pool, { prepare: true }), // named statements, planned once
  verifier: createStaticTokenVerifier([token]),
});
const server = await serve({
  fetch: store.fetch,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
});
console.log(`listening on ${server.url}`);

async function shutdown(): Promise<void> {
  await server.close(); // stop accepting; in-flight requests finish (up to 10 s)
  await pool.end(); // without this, idle connections keep the process alive for 10 s more
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
