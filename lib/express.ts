/**
 * `plant-store/express`: a plant store as an Express `Router`, `app.use('/api',
 * createRouter(store))`, and the error handler a mount path with parameters needs. Needs `express`.
 * @module
 */

export { createErrorHandler, createRouter } from './express/create-router.ts';
export type { CreateRouterOptions } from './express/create-router.ts';
