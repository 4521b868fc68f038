/**
 * The standalone server's optional dependencies, each loaded only when a setting asks for it:
 * `pg` for `DATABASE_URL`, jose (through `plant-store/jwt`) for JWT mode. A missing package
 * rejects with the loader's error (`ERR_MODULE_NOT_FOUND`), for the CLI to report in one line.
 *
 * @module
 */

import type pg from 'pg';

/** The modules PostgreSQL storage needs: the `pg` driver and the repository over it. */
export interface PostgresModules {
  /** The `pg` driver's default export (`pg.Pool`, ...). */
  readonly pg: typeof pg;
  /** `plant-store/postgres`. */
  readonly repository: typeof import('../postgres.ts');
}

/**
 * Loads `pg` and the PostgreSQL repository module.
 *
 * @returns Both modules; rejects when `pg` cannot be loaded.
 * @example
 * ```ts
 * const { pg, repository } = await loadPostgres();
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await repository.ensurePlantTable(pool);
 * ```
 */
export async function loadPostgres(): Promise<PostgresModules> {
  const [driver, repository] = await Promise.all([import('pg'), import('../postgres.ts')]);
  return { pg: driver.default, repository };
}

/**
 * Loads `plant-store/jwt`, and with it jose.
 *
 * @returns The module; rejects when jose cannot be loaded.
 * @example
 * ```ts
 * const { createJwtVerifier } = await loadJwtVerifier();
 * ```
 */
export function loadJwtVerifier(): Promise<typeof import('../jwt.ts')> {
  return import('../jwt.ts');
}
