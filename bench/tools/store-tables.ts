/**
 * `store-tables.ts`: what keeping plants costs per create as the memory store grows, in
 * process, for the memory repository as built (`dist/`) against the same plants in one `Map`
 * (the layout before it kept a table per run of consecutive ids). Each create also makes some
 * garbage, as a request does, so that the collector runs as it does in a server.
 *
 * Prints nanoseconds per create for each window of `--window` creates, ids counting up from
 * `--first` as the bench's are. Needs `npm run build` first; runs on Node, Bun and Deno alike:
 *
 *   node --import tsx bench/tools/store-tables.ts --store one-map
 *   bun bench/tools/store-tables.ts --store repository
 *   deno run --allow-read bench/tools/store-tables.ts
 *
 * Flags: --store repository|one-map (repository) --windows <n> (10) --window <n> (400000)
 *        --first <id> (1000000000)
 */
import { parseArgs } from 'node:util';
import type * as PlantStore from '../../lib/index.ts';
import { integerFlag } from '../_harness.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'repository' },
    windows: { type: 'string', default: '10' },
    window: { type: 'string', default: '400000' },
    first: { type: 'string', default: '1000000000' },
  },
});
const windows = integerFlag('windows', values.windows);
const window = integerFlag('window', values.window);
let id = BigInt(integerFlag('first', values.first));

type Create = (plant: PlantStore.NewPlant) => unknown;

/** Every plant in one `Map` keyed by its id as a number, as the store kept them before. */
function oneMap(): Create {
  const plants = new Map<number, PlantStore.Plant>();
  return (plant) => {
    const key = Number(plant.id);
    if (plants.has(key)) return { created: false };
    plants.set(key, { name: plant.name });
    return { created: true };
  };
}

/** The memory repository of the build, as `createPlantStore` uses it by default. */
async function repository(): Promise<Create> {
  const url = new URL('../../dist/index.js', import.meta.url);
  const { createMemoryRepository } = (await import(url.href)) as typeof PlantStore;
  const store = createMemoryRepository();
  const context = { signal: new AbortController().signal };
  return (plant) => store.create(plant, context);
}

if (values.store !== 'one-map' && values.store !== 'repository') {
  throw new TypeError('--store must be repository or one-map');
}
const create = values.store === 'one-map' ? oneMap() : await repository();

const perCreate: string[] = [];
for (let w = 0; w < windows; w++) {
  const started = performance.now();
  for (let i = 0; i < window; i++) {
    // Some short-lived objects, as a request makes, then the create.
    const text = JSON.stringify({ id: String(id), name: `Monstera ${i}`, headers: [i, i + 1] });
    const parsed = JSON.parse(text) as { name: string };
    create({ id, name: parsed.name });
    id++;
  }
  perCreate.push((((performance.now() - started) * 1e6) / window).toFixed(0));
}
console.log(`${values.store}: ns per create, by window of ${window}: ${perCreate.join(' ')}`);
