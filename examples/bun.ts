/**
 * plant-store on Bun: `store.fetch` is a `Bun.serve` handler as it is.
 *
 * `API_TOKEN=s3cr3t bun examples/bun.ts` (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

// The project typechecks with Node's types; under Bun this names the real global.
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request) => Promise<Response>;
  }): { readonly hostname: string; readonly port: number };
};

const token = process.env.API_TOKEN;
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const server = Bun.serve({
  hostname: process.env.HOST ?? '127.0.0.1',
  port: Number(process.env.PORT ?? 3000),
  fetch: store.fetch,
});
console.log(`listening on http://${server.hostname}:${server.port}`);
