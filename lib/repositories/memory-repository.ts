import { PlantApiError } from '../errors.ts';
import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../types.ts';

/** Options of `createMemoryRepository`. */
export interface CreateMemoryRepositoryOptions {
  /**
   * The most plants it keeps: past it a new id is refused with `ERR_STORE_FULL` (the client
   * gets `507`), while a stored id still replays or conflicts as before. A process with a memory
   * limit then refuses creates instead of being killed. Unset: no cap.
   * @default undefined
   */
  readonly maxPlants?: number | undefined;
}

const CREATED: CreatePlantOutcome = Object.freeze({ created: true });

/** Where a safe id is split: both parts are then small integers. */
const SPLIT = 2 ** 30;

/**
 * Creates the in-memory `PlantRepository`, the store's default: plants live in `Map`s keyed by
 * id for as long as the process does, up to `maxPlants` if given.
 *
 * A create is atomic because the lookup and the insert run in one synchronous step: no other
 * request can interleave between them.
 *
 * @param options The cap on the plants it keeps.
 * @returns A repository whose `create` answers synchronously; it throws only `ERR_STORE_FULL`.
 * @throws {TypeError} When `maxPlants` is not a positive integer, or an option is unknown.
 * @example
 * ```ts
 * const repository = createMemoryRepository({ maxPlants: 1_000_000 });
 * const store = createPlantStore({ repository, verifier });
 * ```
 */
export function createMemoryRepository(
  options: CreateMemoryRepositoryOptions = {},
): PlantRepository {
  for (const name of Object.keys(options ?? {})) {
    if (name !== 'maxPlants') {
      throw new TypeError(`createMemoryRepository: unknown option "${name}" (known: maxPlants)`);
    }
  }
  const maxPlants = options?.maxPlants ?? Number.POSITIVE_INFINITY;
  if (
    maxPlants !== Number.POSITIVE_INFINITY &&
    !(Number.isSafeInteger(maxPlants) && maxPlants > 0)
  ) {
    throw new TypeError('createMemoryRepository: maxPlants must be a positive integer');
  }
  let count = 0;
  // A safe id (|id| < 2^53) is keyed by two small integers: its quotient by 2^30 (truncated;
  // it fits `| 0`) picks the table, its remainder the entry. V8 keeps both unboxed, so no key is
  // a heap object to allocate, follow on each lookup and move in each scavenge (`bigint` keys
  // cost the standalone server 6% of its req/s: bench/RESULTS.md). Every other id is kept in one
  // more table, by its `bigint`.
  const tables = new Map<number, Map<number | bigint, Plant>>();
  return {
    // Deliberately does not read context.signal: the store makes a signal only when it is read
    // (an AbortController costs more than this whole create on Node 20), and it never calls a
    // repository for a request that is already over.
    create(plant: NewPlant): CreatePlantOutcome {
      const id = Number(plant.id);
      const safe = Number.isSafeInteger(id);
      // A quotient is below 2^23 in size, so 2^30 is free to name the other ids' table.
      const high = safe ? (id / SPLIT) | 0 : SPLIT;
      let table = tables.get(high);
      const low = safe ? id % SPLIT : plant.id;
      const existing = table?.get(low);
      if (existing !== undefined) return { created: false, existing };
      if (count >= maxPlants) throw new PlantApiError('ERR_STORE_FULL');
      count++;
      if (table === undefined) {
        table = new Map();
        tables.set(high, table);
      }
      // Store a copy of the declared fields only, so the caller's object is never retained.
      table.set(
        low,
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return CREATED;
    },
  };
}
