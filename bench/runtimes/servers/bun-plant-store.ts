/** plant-store on Bun: the built package's `store.fetch` as the `Bun.serve` handler. */
import { plantStoreFetch } from './_plant-store.ts';
import { serveOnBun } from './_runtime.ts';

serveOnBun(await plantStoreFetch());
