/**
 * `plant-store/express`: a plant store as an Express `Router`, `app.use('/api',
 * createRouter(store))`. Needs `express`.
 * @module
 */

export { createRouter } from './express/create-router.ts';
export type { CreateRouterOptions } from './express/create-router.ts';
