/**
 * `plant-store/fastify`: a plant store as a Fastify plugin,
 * `app.register(plantStore, { store, prefix })`. Needs `fastify`.
 * @module
 */

export { plantStore as default, plantStore } from './fastify/plant-store-plugin.ts';
export type { PlantStorePluginOptions } from './fastify/plant-store-plugin.ts';
