/**
 * The store on PostgreSQL inside a Worker, through `pg` over Workers' TCP sockets
 * (`cloudflare:sockets`, which `pg` uses on workerd): a `pg.Client` per request, since a Worker
 * may not reuse one request's connection in another. `DATABASE_URL` and `API_TOKEN` are bindings.
 *
 * @module
 */

import { env } from 'cloudflare:workers';
import pg from 'pg';
import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
import { createPostgresRepository } from 'plant-store/postgres';

const bindings = env as unknown as { DATABASE_URL: string; API_TOKEN: string };

export default {
  async fetch(request: Request): Promise<Response> {
    const client = new pg.Client({ connectionString: bindings.DATABASE_URL });
    await client.connect();
    try {
      const store = createPlantStore({
        repository: createPostgresRepository(client),
        verifier: createStaticTokenVerifier([bindings.API_TOKEN]),
      });
      return await store.fetch(request);
    } finally {
      await client.end();
    }
  },
};
