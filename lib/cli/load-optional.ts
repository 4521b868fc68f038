/**
 * The standalone server's optional dependencies, each loaded only when a setting asks for it:
 * `pg` for `DATABASE_URL`, jose (through `plant-store/jwt`) for JWT mode. A missing package
 * rejects with the loader's error, for the CLI to report in one line.
 *
 * @module
 */

import type pg from 'pg';

export interface PostgresModules {
  readonly pg: typeof pg;
  readonly repository: typeof import('../postgres.ts');
}

export async function loadPostgres(): Promise<PostgresModules> {
  const [driver, repository] = await Promise.all([import('pg'), import('../postgres.ts')]);
  return { pg: driver.default, repository };
}

export function loadJwtVerifier(): Promise<typeof import('../jwt.ts')> {
  return import('../jwt.ts');
}
