/**
 * `plant-store/cors`: CORS for browser pages of other origins, off unless a store is given
 * `cors: createCors({ origins })`.
 * @module
 */

export type { CorsOptions } from './cors/create-cors.ts';
export { createCors, DEFAULT_CORS_MAX_AGE } from './cors/create-cors.ts';
