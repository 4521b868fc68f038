/**
 * Repositories with the mistakes real ones make, for the kit to catch: each is a few lines of
 * the kind a host might write for its own database.
 *
 * @module
 */

import type { Plant, PlantRepository } from '../../lib/index.ts';

/** A repository over a Map by exact id, which honours its signal, with `create`'s mistake in it. */
function mapRepository(
  create: (
    plants: Map<bigint, Plant>,
    plant: { id: bigint; name: string; tag?: string },
  ) => Promise<unknown>,
): () => PlantRepository {
  return () => {
    const plants = new Map<bigint, Plant>();
    return {
      create(plant, { signal }) {
        signal.throwIfAborted();
        return create(plants, plant) as never;
      },
    };
  };
}

const toPlant = (plant: { name: string; tag?: string }): Plant =>
  plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };

/**
 * Treats every id already stored as a conflict: a plain INSERT whose unique violation is
 * thrown, so an identical retry fails instead of replaying.
 */
export const conflictOnEveryExistingId = mapRepository(async (plants, plant) => {
  if (plants.has(plant.id))
    throw new Error('duplicate key value violates unique constraint "plants_pkey"');
  plants.set(plant.id, toPlant(plant));
  return { created: true };
});

/**
 * Reads, then writes, with a wait in between (a round trip to the database) and no unique key:
 * two concurrent creates of one id can both find it free and both win.
 */
export const noUniquenessGuarantee = mapRepository(async (plants, plant) => {
  const existing = plants.get(plant.id);
  await new Promise((resolve) => setTimeout(resolve, 1));
  if (existing !== undefined) return { created: false, existing };
  plants.set(plant.id, toPlant(plant));
  return { created: true };
});

/** Keys plants by `Number(id)`, as a driver or column that holds a double would. */
export function roundsIdsThroughNumber(): PlantRepository {
  const plants = new Map<number, Plant>();
  return {
    async create(plant, { signal }) {
      signal.throwIfAborted();
      const key = Number(plant.id);
      const existing = plants.get(key);
      if (existing !== undefined) return { created: false, existing };
      plants.set(key, toPlant(plant));
      return { created: true };
    },
  };
}

/** Answers `{ created: 'yes' }` for a new id: a boolean column read back as text. */
export const malformedOutcome = mapRepository(async (plants, plant) => {
  const existing = plants.get(plant.id);
  if (existing !== undefined) return { created: false, existing };
  plants.set(plant.id, toPlant(plant));
  return { created: 'yes' };
});

/** Upserts: reports the plant it found, then overwrites it (`ON CONFLICT DO UPDATE`). */
export const overwritesOnConflict = mapRepository(async (plants, plant) => {
  const existing = plants.get(plant.id);
  plants.set(plant.id, toPlant(plant));
  return existing === undefined ? { created: true } : { created: false, existing };
});

/**
 * Skips the write when its signal has already fired but still answers `{ created: true }`: the
 * client is told of a plant that was never stored.
 */
export function claimsAbortedCreates(): PlantRepository {
  const plants = new Map<bigint, Plant>();
  return {
    async create(plant, { signal }) {
      const existing = plants.get(plant.id);
      if (existing !== undefined) return { created: false, existing };
      if (!signal.aborted) plants.set(plant.id, toPlant(plant));
      return { created: true };
    },
  };
}
