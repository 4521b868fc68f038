/**
 * The contract's case list on Deno: directly, then over real HTTP with `store.fetch` behind
 * `Deno.serve` on 127.0.0.1 and `fetch` as the client.
 * `deno run --allow-net=127.0.0.1 --allow-read test/runtimes/deno.ts [lib|dist]`; exits 1 when a
 * case fails.
 *
 * @module
 */

import { type ClientLibrary, inProcess, overHttp, runClientChecks } from './_client.ts';
import { createHandlerRouter, loadLibrary, loadPlantStore, runConformance } from './_run.ts';

/** The part of Deno's global this file uses (the project's types are Node's, not Deno's). */
interface DenoApi {
  readonly version: { readonly deno: string };
  readonly args: readonly string[];
  serve(
    options: { hostname: string; port: number; onListen(): void },
    handler: (request: Request) => Promise<Response>,
  ): { readonly addr: { readonly port: number }; shutdown(): Promise<void> };
  exit(code: number): never;
}
const { Deno } = globalThis as unknown as { Deno: DenoApi };

const which = Deno.args[0] ?? 'lib';
const lib = await loadPlantStore(which);
const label = `Deno ${Deno.version.deno} (${which})`;
console.log(label);

const direct = await runConformance(lib, `${label} direct`);
const router = createHandlerRouter();
const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, router.fetch);
const origin = `http://127.0.0.1:${server.addr.port}`;
const overHttpRun = await runConformance(lib, `${label} over HTTP`, router.transport(origin), true);
await server.shutdown();

const client = await loadLibrary<ClientLibrary>(which, 'client');
const clientDirect = await runClientChecks(lib, client, `${label} client in-process`, inProcess);
const clientOverHttp = await runClientChecks(
  lib,
  client,
  `${label} client over HTTP`,
  overHttp(async (handler) => {
    const served = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, handler);
    return { origin: `http://127.0.0.1:${served.addr.port}`, close: () => served.shutdown() };
  }),
);

const failed = [direct, overHttpRun, clientDirect, clientOverHttp].some((run) => run.failed > 0);
Deno.exit(failed ? 1 : 0);
