/**
 * What the Bun and Deno bench servers share: the part of each runtime's global they use (the
 * project type-checks with Node's types, not Bun's or Deno's), and serving a fetch handler on
 * 127.0.0.1 with the ready line the harness waits for.
 *
 * @module
 */

import { announce, benchPort } from '../../servers/_common.ts';

/** A web-standard handler, as every server here serves one. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** The part of Bun's global these servers use. */
interface BunApi {
  readonly version: string;
  serve(options: { hostname: string; port: number; fetch: FetchHandler }): {
    readonly port: number;
  };
}

/** The part of Deno's global these servers use. */
interface DenoApi {
  serve(
    options: { hostname: string; port: number; onListen(): void },
    handler: FetchHandler,
  ): { readonly addr: { readonly port: number } };
}

const runtimes = globalThis as unknown as { Bun?: BunApi; Deno?: DenoApi };

/** Serves `fetch` with `Bun.serve`, so that every Bun server listens the same way. */
export function serveOnBun(fetch: FetchHandler): void {
  const { Bun } = runtimes;
  if (Bun === undefined) throw new Error('this server runs on Bun');
  const server = Bun.serve({ hostname: '127.0.0.1', port: benchPort(), fetch });
  announce(server.port);
}

/** Serves `fetch` with `Deno.serve`, so that every Deno server listens the same way. */
export function serveOnDeno(fetch: FetchHandler): void {
  const { Deno } = runtimes;
  if (Deno === undefined) throw new Error('this server runs on Deno');
  const server = Deno.serve({ hostname: '127.0.0.1', port: benchPort(), onListen() {} }, fetch);
  announce(server.addr.port);
}
