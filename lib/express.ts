/**
 * `plant-store/express`: a plant store as an Express `Router`, `app.use('/api',
 * createRouter(store))`. Needs `express` (an optional peer dependency); loads `node:*` through
 * `plant-store/node`.
 *
 * @module
 */

export { createRouter } from './express/create-router.ts';
export type { CreateRouterOptions } from './express/create-router.ts';
