/**
 * `plant-store`: the create-a-plant operation as a web-standard handler, with the in-memory
 * repository, the static-token verifier and the OpenAPI document. Loads no `node:*`.
 * @module
 */

export { CREATE_CHANNEL, REPOSITORY_CHANNEL, VERIFIER_CHANNEL } from './diagnostics/channels.ts';
export type {
  CollaboratorChannelMessage,
  CreateChannelMessage,
  CreateOutcome,
} from './diagnostics/messages.ts';
export type { ErrorReply, PlantApiErrorCode } from './errors.ts';
export { errorReply, errorResponse, PlantApiError } from './errors.ts';
export { openApiDocument } from './openapi/openapi-document.ts';
export { INT64_MAX, INT64_MIN, NewPlantSchema } from './operation/plant-schema.ts';
export type { CreateMemoryRepositoryOptions } from './repositories/memory-repository.ts';
export { createMemoryRepository } from './repositories/memory-repository.ts';
export { createPlantStore } from './store/create-plant-store.ts';
export type {
  Cors,
  CreatePlantOutcome,
  CreatePlantStoreOptions,
  ErrorContext,
  FetchHandler,
  NewPlant,
  Plant,
  PlantRepository,
  PlantRepositoryContext,
  PlantStore,
  TokenRejectionReason,
  TokenVerdict,
  TokenVerifier,
  TokenVerifierContext,
} from './types.ts';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './types.ts';
export { createStaticTokenVerifier } from './verifiers/static-token-verifier.ts';
