/**
 * The contract's case list on Bun: directly, then over real HTTP with `store.fetch` behind
 * `Bun.serve` on 127.0.0.1 and `fetch` as the client. `bun test/runtimes/bun.ts [lib|dist]`;
 * exits 1 when a case fails.
 *
 * @module
 */

import { type ClientLibrary, inProcess, overHttp, runClientChecks } from './_client.ts';
import { createHandlerRouter, loadLibrary, loadPlantStore, runConformance } from './_run.ts';

/** The part of Bun's global this file uses (the project's types are Node's, not Bun's). */
interface BunApi {
  readonly version: string;
  serve(options: { hostname: string; port: number; fetch(request: Request): Promise<Response> }): {
    readonly port: number;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
}
const { Bun } = globalThis as unknown as { Bun: BunApi };

const which = process.argv[2] ?? 'lib';
const lib = await loadPlantStore(which);
const label = `Bun ${Bun.version} (${which})`;
console.log(label);

const direct = await runConformance(lib, `${label} direct`);
const router = createHandlerRouter();
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: router.fetch });
const origin = `http://127.0.0.1:${server.port}`;
const overHttpRun = await runConformance(lib, `${label} over HTTP`, router.transport(origin), true);
await server.stop(true);

const client = await loadLibrary<ClientLibrary>(which, 'client');
const clientDirect = await runClientChecks(lib, client, `${label} client in-process`, inProcess);
const clientOverHttp = await runClientChecks(
  lib,
  client,
  `${label} client over HTTP`,
  overHttp(async (handler) => {
    const served = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler });
    return { origin: `http://127.0.0.1:${served.port}`, close: () => served.stop(true) };
  }),
);

const failed = [direct, overHttpRun, clientDirect, clientOverHttp].some((run) => run.failed > 0);
process.exit(failed ? 1 : 0);
