/**
 * A schema of its own in the PostgreSQL server at `DATABASE_URL`, for a test file whose processes
 * store there: a URL that puts them in it, and a pool to read what they stored.
 *
 * @module
 */

import pg from 'pg';

export interface OwnSchema {
  readonly name: string;
  /** `DATABASE_URL` with the schema as its `search_path`. */
  readonly url: string;
  readonly admin: pg.Pool;
  /** Drops the schema and ends the pool. */
  drop(): Promise<void>;
}

/**
 * Makes the schema (`<prefix>_<pid>_<time>`), or says why there is none: `DATABASE_URL` unset, or
 * its server out of reach.
 */
export async function ownSchema(prefix: string): Promise<OwnSchema | string> {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl === undefined || databaseUrl === '') {
    return 'DATABASE_URL is not set: this test needs a PostgreSQL server (.ci/run sets it)';
  }
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Pool({
    connectionString: databaseUrl,
    max: 1,
    connectionTimeoutMillis: 3000,
  });
  admin.on('error', () => {});
  try {
    await admin.query(`CREATE SCHEMA "${name}"`);
  } catch (error) {
    await admin.end();
    return `the database at DATABASE_URL cannot be reached: ${(error as Error).message}`;
  }
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.href,
    admin,
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.end();
    },
  };
}
