/**
 * `plant-store/cors`: CORS for a plant store, for browser pages of other origins. Off unless a
 * store is given `cors: createCors({ origins })`; a host with CORS middleware of its own can
 * leave it off and ship none of it.
 *
 * @module
 */

export type { CorsOptions } from './cors/create-cors.ts';
export { createCors, DEFAULT_CORS_MAX_AGE } from './cors/create-cors.ts';
