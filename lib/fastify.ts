/**
 * `plant-store/fastify`: a plant store as a Fastify plugin,
 * `app.register(plantStore, { store, prefix })`. Needs `fastify` (an optional peer dependency);
 * loads `node:*` through `plant-store/node`.
 *
 * @module
 */

export { plantStore as default, plantStore } from './fastify/plant-store-plugin.ts';
export type { PlantStorePluginOptions } from './fastify/plant-store-plugin.ts';
