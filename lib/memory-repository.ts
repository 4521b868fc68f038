import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from './types.ts';

const CREATED: CreatePlantOutcome = Object.freeze({ created: true });

/**
 * Creates the in-memory `PlantRepository`, the store's default: plants live in a `Map` keyed by
 * id for as long as the process does.
 *
 * A create is atomic because the lookup and the insert run in one synchronous step: no other
 * request can interleave between them.
 *
 * @returns A repository whose `create` answers synchronously and never throws.
 * @example
 * ```ts
 * const repository = createMemoryRepository();
 * const store = createPlantStore({ repository, verifier });
 * ```
 */
export function createMemoryRepository(): PlantRepository {
  const plants = new Map<bigint, Plant>();
  return {
    // Deliberately does not read context.signal: the store makes a signal only when it is read
    // (an AbortController costs more than this whole create on Node 20), and it never calls a
    // repository for a request that is already over.
    create(plant: NewPlant): CreatePlantOutcome {
      const existing = plants.get(plant.id);
      if (existing !== undefined) return { created: false, existing };
      // Store a copy of the declared fields only, so the caller's object is never retained.
      plants.set(
        plant.id,
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return CREATED;
    },
  };
}
