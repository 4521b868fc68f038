export {
  createPlantStore,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
} from './create-plant-store.ts';
export type { ErrorReply, PlantApiErrorCode } from './errors.ts';
export { errorReply, errorResponse, PlantApiError } from './errors.ts';
export { createMemoryRepository } from './memory-repository.ts';
export { openApiDocument } from './openapi.ts';
export { INT64_MAX, INT64_MIN, NewPlantSchema } from './plant-schema.ts';
export { createStaticTokenVerifier } from './static-token-verifier.ts';
export type {
  CreatePlantOutcome,
  CreatePlantStoreOptions,
  NewPlant,
  Plant,
  PlantRepository,
  PlantRepositoryContext,
  PlantStore,
  TokenVerdict,
  TokenVerifier,
  TokenVerifierContext,
} from './types.ts';
