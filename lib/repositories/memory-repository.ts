import { PlantApiError } from '../errors.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../types.ts';
import { malformedText } from './well-formed-plant.ts';

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

/**
 * How many consecutive ids share a table. New ids then fill one table at a time, which is left
 * alone once full, where one table of millions stalled a server under load; much smaller tables
 * waste memory when ids are random, each then holding few plants.
 */
const TABLE_SIZE = 16_384;

/**
 * Creates the in-memory `PlantRepository`, the store's default: plants live in `Map`s keyed by
 * id for as long as the process does, up to `maxPlants` if given.
 *
 * A create is atomic because the lookup and the insert run in one synchronous step: no other
 * request can interleave between them.
 *
 * A `name` or `tag` that is not well-formed UTF-16 (a lone surrogate) is refused with a
 * `TypeError`, thrown as every answer of this repository comes: at once.
 *
 * @param options The cap on the plants it keeps.
 * @returns A repository whose `create` answers synchronously; it throws only `ERR_STORE_FULL`
 *   and that `TypeError`.
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
  checkOptionNames('createMemoryRepository', options, ['maxPlants']);
  const maxPlants = options?.maxPlants ?? Infinity;
  if (maxPlants !== Infinity && !(Number.isSafeInteger(maxPlants) && maxPlants > 0)) {
    throw new TypeError('createMemoryRepository: maxPlants must be a positive integer');
  }
  let count = 0;
  // A safe id (|id| < 2^53) is keyed by two numbers: its run of TABLE_SIZE ids picks the table,
  // its place in the run the entry. Small integers are no heap objects, where a `bigint` key is
  // one to allocate and follow on every lookup. Every other id is kept in one more table, by its
  // `bigint`.
  const tables = new Map<number, Map<number | bigint, Plant>>();
  return {
    // Deliberately does not read context.signal: the store makes a signal only when it is read,
    // and it never calls a repository for a request that is already over.
    create(plant: NewPlant): CreatePlantOutcome {
      const malformed = malformedText(plant, 'createMemoryRepository');
      if (malformed !== undefined) throw malformed;
      const id = Number(plant.id);
      const safe = Number.isSafeInteger(id);
      // No run of safe ids is Infinity, so it names the table of every other id.
      const run = safe ? Math.floor(id / TABLE_SIZE) : Infinity;
      const key = safe ? id - run * TABLE_SIZE : plant.id;
      let table = tables.get(run);
      const existing = table?.get(key);
      if (existing !== undefined) return { created: false, existing };
      if (count >= maxPlants) throw new PlantApiError('ERR_STORE_FULL');
      count++;
      if (table === undefined) {
        table = new Map();
        tables.set(run, table);
      }
      // Store a copy of the declared fields only, so the caller's object is never retained.
      table.set(
        key,
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return CREATED;
    },
  };
}
