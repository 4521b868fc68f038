/** plant-store on Deno: the built package's `store.fetch` as the `Deno.serve` handler. */
import { plantStoreFetch } from './_plant-store.ts';
import { serveOnDeno } from './_runtime.ts';

serveOnDeno(await plantStoreFetch());
