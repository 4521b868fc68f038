/**
 * `plant-store/client`: a typed client of the Plant Store API for any runtime. Ids go on the wire
 * exactly; a create whose answer was lost is retried safely.
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
