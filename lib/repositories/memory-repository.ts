import { PlantApiError } from '../errors.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../types.ts';
import { malformedText } from './well-formed-plant.ts';

/** Options of `createMemoryRepository`. */
export interface CreateMemoryRepositoryOptions {
  /**
   * The most plants kept, or no cap when unset; past it a new id is refused with
   * `ERR_STORE_FULL` (`507`) while a stored id still replays or conflicts.
   * @default undefined
   */
  readonly maxPlants?: number | undefined;
}

const CREATED: CreatePlantOutcome = Object.freeze({ created: true });

// Consecutive ids per table; why this size is in docs/DECISIONS.md.
const TABLE_SIZE = 16_384;

/**
 * Creates the in-memory `PlantRepository`, the store's default.
 *
 * Plants live as long as the process, up to `maxPlants`; past it a new id is refused with
 * `ERR_STORE_FULL` (`507`). `create` answers synchronously and is atomic. A `name` or `tag`
 * holding a lone surrogate throws a `TypeError`.
 *
 * @param options The cap on the plants kept; no cap by default.
 * @returns A repository whose `create` throws only `ERR_STORE_FULL` and that `TypeError`.
 * @throws {TypeError} When `maxPlants` is not a positive integer, or an option is unknown.
 * @example
 * ```ts
 * import {
 *   createMemoryRepository,
 *   createPlantStore,
 *   createStaticTokenVerifier,
 * } from 'plant-store';
 *
 * const repository = createMemoryRepository({ maxPlants: 1_000_000 });
 * const store = createPlantStore({ repository, verifier: createStaticTokenVerifier(['s3cr3t']) });
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
  // A safe id is keyed by numbers (its run picks the table, its place the entry), cheaper to
  // look up than a `bigint`; every other id goes in one more table, keyed by its `bigint`.
  const tables = new Map<number, Map<number | bigint, Plant>>();
  return {
    // context.signal stays unread: the store builds a signal only when one is read, and never
    // calls a repository for a request that is already over.
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
      // A copy of the declared fields only: the caller's object is never retained.
      table.set(
        key,
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return CREATED;
    },
  };
}
