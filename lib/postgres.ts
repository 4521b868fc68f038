/**
 * `plant-store/postgres`: a `PlantRepository` on PostgreSQL and the function that creates its
 * table. It imports no driver: a `pg` `Pool` or `Client`, or PGlite, is handed in.
 *
 * @module
 */

export type {
  CreatePostgresRepositoryOptions,
  PostgresClient,
  PostgresPlantRepository,
  PostgresTableOptions,
} from './repositories/postgres-repository.ts';
export { createPostgresRepository, ensurePlantTable } from './repositories/postgres-repository.ts';
