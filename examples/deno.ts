/**
 * plant-store on Deno: `store.fetch` is a `Deno.serve` handler as it is.
 *
 * `API_TOKEN=s3cr3t deno run --allow-net --allow-env --allow-read examples/deno.ts`
 * (PORT, default 3000; HOST, default 127.0.0.1).
 *
 * @module
 */

import { createPlantStore, createStaticTokenVerifier } from 'plant-store';

// The project typechecks with Node's types; under Deno this names the real global.
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const token = Deno.env.get('API_TOKEN');
if (!token) throw new Error('set API_TOKEN to the bearer token clients must send');
const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });

const hostname = Deno.env.get('HOST') ?? '127.0.0.1';
Deno.serve(
  {
    hostname,
    port: Number(Deno.env.get('PORT') ?? 3000),
    onListen: ({ port }) => console.log(`listening on http://${hostname}:${port}`),
  },
  store.fetch,
);
