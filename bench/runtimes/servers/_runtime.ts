/**
 * Serving a fetch handler on 127.0.0.1 with `Bun.serve` or `Deno.serve`, whichever runtime this
 * is, with the ready line the harness waits for. The project type-checks with Node's types, so
 * the part of each runtime's global used here is declared here.
 *
 * @module
 */

import { announce, benchPort } from '../../servers/_common.ts';

type FetchHandler = (request: Request) => Response | Promise<Response>;

const { Bun, Deno } = globalThis as unknown as {
  Bun?: {
    serve(options: { hostname: string; port: number; fetch: FetchHandler }): { port: number };
  };
  Deno?: {
    serve(
      options: { hostname: string; port: number; onListen(): void },
      handler: FetchHandler,
    ): { addr: { port: number } };
  };
};

/** Serves `fetch` on this runtime's own server, as every Bun and Deno server here listens. */
export function serveHere(fetch: FetchHandler): void {
  const options = { hostname: '127.0.0.1', port: benchPort() };
  if (Bun !== undefined) return announce(Bun.serve({ ...options, fetch }).port);
  if (Deno === undefined) throw new Error('this server runs on Bun or Deno');
  announce(Deno.serve({ ...options, onListen() {} }, fetch).addr.port);
}
