/**
 * The contract's case list on the Node that runs this file: directly, then over HTTP through
 * `plant-store/node`'s `serve`. `node --import tsx test/runtimes/node.ts [lib|dist]` on Node 20;
 * Node 22.18+ and 24 run it as is (type stripping). Exits 1 when a case fails.
 *
 * @module
 */

import type * as NodeAdapter from '../../lib/node.ts';
import { type ClientLibrary, inProcess, overHttp, runClientChecks } from './_client.ts';
import { createHandlerRouter, loadLibrary, loadPlantStore, runConformance } from './_run.ts';

const which = process.argv[2] ?? 'lib';
const lib = await loadPlantStore(which);
const { serve } = await loadLibrary<typeof NodeAdapter>(which, 'node');
const label = `Node ${process.version} (${which})`;
console.log(label);

const direct = await runConformance(lib, `${label} direct`);
const router = createHandlerRouter();
const server = await serve({ fetch: router.fetch, port: 0, host: '127.0.0.1', onError: () => {} });
const overHttpRun = await runConformance(
  lib,
  `${label} over HTTP`,
  router.transport(server.url),
  true,
);
await server.close();

const client = await loadLibrary<ClientLibrary>(which, 'client');
const clientDirect = await runClientChecks(lib, client, `${label} client in-process`, inProcess);
const clientOverHttp = await runClientChecks(
  lib,
  client,
  `${label} client over HTTP`,
  overHttp(async (handler) => {
    const served = await serve({ fetch: handler, port: 0, host: '127.0.0.1', onError: () => {} });
    return { origin: served.url, close: () => served.close() };
  }),
);

const failed = [direct, overHttpRun, clientDirect, clientOverHttp].some((run) => run.failed > 0);
process.exitCode = failed ? 1 : 0;
