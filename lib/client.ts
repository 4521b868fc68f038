/**
 * `plant-store/client`: a small typed client of the Plant Store API for browsers, Node, Deno,
 * Bun and Workers. Ids go on the wire exactly; creates whose answer was lost are retried safely.
 * It loads nothing of the server side and no package.
 *
 * @module
 */

export { createPlantClient } from './client/create-plant-client.ts';
export { PlantClientError } from './client/plant-client-error.ts';
export type { PlantClientErrorCode, PlantClientErrorDetails } from './client/plant-client-error.ts';
export type {
  CreatePlantClientOptions,
  CreatePlantOptions,
  PlantClient,
  RetryOptions,
} from './client/types.ts';
export type { ErrorBody, NewPlant, Plant, PlantIdInput } from './types.ts';
