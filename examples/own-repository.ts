/**
 * A hand-written `PlantRepository` over a store the host already has, here `Garden`, a stand-in
 * for a host's own database client (its API is its own: `get` and an atomic `putIfAbsent`). The
 * repository is one method: store the plant when its id is free, or hand back what is stored.
 * Served on Node by `plant-store/node`.
 *
 * `API_TOKEN=s3cr3t npx tsx examples/own-repository.ts` (PORT, default 3000; HOST, default
 * 127.0.0.1).
 *
 * @module
 */

import { createPlantStore, createStaticTokenVerifier, type PlantRepository } from 'plant-store';
import { serve } from 'plant-store/node';

/** The host's own store: string keys, JSON documents, an atomic insert-if-absent. */
class Garden {
  readonly #documents = new Map<string, string>();

  /** The document under `key`, or `undefined`. */
  async get(key: string): Promise<string | undefined> {
    return this.#documents.get(key);
  }

  /** Stores `document` under `key` unless the key is taken; true when it stored it. */
  async putIfAbsent(key: string, document: string): Promise<boolean> {
    if (this.#documents.has(key)) return false;
    this.#documents.set(key, document);
    return true;
  }
}

/** The plant store's repository over a `Garden`. */
function gardenRepository(garden: Garden): PlantRepository {
  return {
    async create(plant, { signal }) {
      signal.throwIfAborted(); // the client left, or the deadline passed: do not write
      // The id is a bigint, exact over the whole int64 range: keep it as its decimal string.
      const key = `plant:${plant.id}`;
      const document = JSON.stringify({ name: plant.name, tag: plant.tag });
      if (await garden.putIfAbsent(key, document)) return { created: true };
      const stored = await garden.get(key);
      if (stored === undefined) throw new Error(`${key} vanished between put and get`);
      return { created: false, existing: JSON.parse(stored) };
    },
  };
}

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({
  repository: gardenRepository(new Garden()),
  verifier: createStaticTokenVerifier([token]),
});

const server = await serve({
  fetch: store.fetch,
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
});
console.log(`listening on ${server.url}`);
process.once('SIGTERM', () => void server.close());
