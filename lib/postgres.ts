/**
 * `plant-store/postgres`: a `PlantRepository` on PostgreSQL and its table. It imports no driver:
 * hand in a `pg` `Pool` or `Client`, or PGlite.
 * @module
 */

export type {
  CreatePostgresRepositoryOptions,
  PostgresPlantRepository,
} from './repositories/postgres-repository.ts';
export {
  createPostgresRepository,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_IN_FLIGHT,
} from './repositories/postgres-repository.ts';
export { DEFAULT_TABLE } from './repositories/postgres-shared.ts';
export type {
  PostgresClient,
  PostgresPool,
  PostgresPoolConnection,
  PostgresTableOptions,
  PreparingPostgresClient,
} from './repositories/postgres-shared.ts';
export { ensurePlantTable } from './repositories/postgres-table.ts';
