/**
 * The contract's case list and the client's checks inside `workerd`, shared by the Workers in
 * this folder: `router` serves each case's `store.fetch` (the Worker's default export hands it
 * every request), and `runner`, a named entrypoint of the same Worker, runs the cases when the
 * Node side asks (`GET /?origin=<the default export's origin>`) and answers with their output.
 * Both live in one isolate, as a case's store and the requests it gets must.
 *
 * @module
 */

import * as client from 'plant-store/client';
import * as core from 'plant-store';
import * as cors from 'plant-store/cors';
import type { PlantStore } from '../../../lib/index.ts';
import { inProcess, type Reach, runClientChecks } from '../_client.ts';
import { createHandlerRouter, type RunCounts, runConformance } from '../_run.ts';

const lib = { ...core, ...cors };

/**
 * The cases a Worker cannot host over HTTP when it is both the client and the server: this one
 * sends a request from inside another request's repository call, and Workers settle a promise
 * only in the request that made it
 * (https://developers.cloudflare.com/workers/observability/errors/). A deployed store is never
 * its own client; the case holds when called directly, above.
 */
const SKIPPED_OVER_HTTP = new Map([
  [
    'handleCreatePlant: 8. store, the deadline › keeps the deadline of a create started while another one expires',
    "sends a request from inside another request's repository call, which Workers tie to that request",
  ],
]);

/** The router the Worker's default export hands every request to. */
export const router = createHandlerRouter();

/** The client reaching a store over real HTTP: through workerd's socket, back to this Worker. */
function throughSocket(origin: string): Reach {
  const deliver = router.transport(origin);
  return async (store: PlantStore) => ({
    baseUrl: origin,
    fetch: (request: Request) => deliver(store.fetch, request),
    close: async () => {},
  });
}

/**
 * The Worker's `runner` entrypoint: runs everything and answers with the output and whether
 * any case failed.
 */
export const runner = {
  async fetch(request: Request): Promise<Response> {
    const origin = new URL(request.url).searchParams.get('origin');
    if (origin === null) return new Response('?origin= is required', { status: 400 });
    const lines: string[] = [];
    const log = console.log;
    console.log = (...parts: unknown[]) => lines.push(parts.map(String).join(' '));
    const runs: RunCounts[] = [];
    try {
      const label = `workerd ${globalThis.navigator?.userAgent ?? ''}`.trim();
      runs.push(await runConformance(lib, `${label} direct`));
      runs.push(
        await runConformance(
          lib,
          `${label} over HTTP`,
          router.transport(origin),
          true,
          SKIPPED_OVER_HTTP,
        ),
      );
      runs.push(await runClientChecks(lib, client, `${label} client in-process`, inProcess));
      runs.push(
        await runClientChecks(lib, client, `${label} client over HTTP`, throughSocket(origin)),
      );
    } catch (error) {
      lines.push(`the run broke: ${String((error as Error)?.stack ?? error)}`);
      runs.push({ passed: 0, failed: 1, skipped: 0 });
    } finally {
      console.log = log;
    }
    const failed = runs.reduce((sum, run) => sum + run.failed, 0);
    return Response.json({ failed, output: lines.join('\n') });
  },
};
