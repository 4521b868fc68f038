/**
 * The standalone server's optional dependencies, each loaded only when a setting asks for it:
 * `pg` for `DATABASE_URL`, jose (through `jwt-verifier.ts`) for JWT mode. A missing package
 * rejects with the loader's error (`ERR_MODULE_NOT_FOUND`), for the CLI to report in one line.
 *
 * These live apart from `cli.ts` because tsx (4.x) cannot parse a file that holds both a
 * dynamic `import()` and a shebang mentioning `--import`.
 *
 * @module
 */

import type pg from 'pg';

/** The modules PostgreSQL storage needs: the `pg` driver and the repository over it. */
export interface PostgresModules {
  /** The `pg` driver's default export (`pg.Pool`, ...). */
  readonly pg: typeof pg;
  /** `plant-store/postgres`. */
  readonly repository: typeof import('./postgres-repository.ts');
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
  const [driver, repository] = await Promise.all([
    import('pg'),
    import('./postgres-repository.ts'),
  ]);
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
export function loadJwtVerifier(): Promise<typeof import('./jwt-verifier.ts')> {
  return import('./jwt-verifier.ts');
}
