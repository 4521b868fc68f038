/**
 * The fetch workload of `_fetch-workload.ts` on srvx (its Node adapter, with its lightweight
 * Request/Response), the body limit enforced by srvx's own `maxRequestBodySize`.
 */
import { serve } from 'srvx';
import { announce, benchPort, MAX_BODY_BYTES } from './_common.ts';
import { createFetchWorkload } from './_fetch-workload.ts';

const server = serve({
  fetch: createFetchWorkload(async (request) => {
    try {
      return await request.text();
    } catch (error) {
      // srvx rejects the read with a 413-coded error once the body passes the limit.
      if ((error as { status?: number }).status === 413) return undefined;
      throw error;
    }
  }),
  port: benchPort(),
  hostname: '127.0.0.1',
  maxRequestBodySize: MAX_BODY_BYTES,
  silent: true,
  gracefulShutdown: false,
});
await server.ready();
announce(Number(new URL(server.url ?? 'http://x:0').port));
