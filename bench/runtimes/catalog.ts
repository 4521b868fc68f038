/**
 * The servers `npm run bench:runtimes` knows: which runtime runs which entry of `servers/`, the
 * row it makes in the table, the bare server its ratio is to, and whether its ids stay exact.
 *
 * @module
 */

/** A runtime besides Node that the bench serves on. */
export type Runtime = 'bun' | 'deno';

/** One server of the bench. */
export interface RuntimeServer {
  /** Its name on the command line (`--servers`). */
  readonly name: string;
  readonly runtime: Runtime;
  /** Its row in the table. */
  readonly label: string;
  /** Its entry, in `bench/runtimes/servers/`. */
  readonly file: string;
  /**
   * Its environment on top of the bench's: `BENCH_BODY_READER` for the bare variants,
   * `BENCH_KEEP_PLANTS` for plant-store with a bounded store (a decay run's heap then stays
   * the same size, so what is left of a decay is the request path's).
   */
  readonly env?: Readonly<Record<string, string>>;
  /** False where the framework, written as its users write it, rounds ids past 2^53. */
  readonly exactIds: boolean;
  /** What it needs besides the runtime: the satellite install, or the package's build. */
  readonly needs?: 'satellite' | 'dist';
  /** True for a diagnostic variant, run only when `--servers` names it. */
  readonly variant?: boolean;
}

/** The servers, in the table's order; each runtime's bare server comes first. */
export const RUNTIME_SERVERS: readonly RuntimeServer[] = [
  {
    name: 'bun-bare',
    runtime: 'bun',
    label: 'bare `Bun.serve`, hand-written handler (`request.text()`)',
    file: 'bun-bare.ts',
    exactIds: true,
  },
  {
    name: 'bun-elysia',
    runtime: 'bun',
    label: 'Elysia (`t.Object` body schema, bearer check)',
    file: 'bun-elysia.ts',
    exactIds: false,
    needs: 'satellite',
  },
  { name: 'bun-hono', runtime: 'bun', label: 'Hono on Bun', file: 'bun-hono.ts', exactIds: false },
  {
    name: 'bun-plant-store',
    runtime: 'bun',
    label: 'plant-store `store.fetch` on `Bun.serve`',
    file: 'bun-plant-store.ts',
    exactIds: true,
    needs: 'dist',
  },
  {
    name: 'deno-bare',
    runtime: 'deno',
    label: 'bare `Deno.serve`, the same handler',
    file: 'deno-bare.ts',
    exactIds: true,
  },
  {
    name: 'deno-hono',
    runtime: 'deno',
    label: 'Hono on Deno',
    file: 'deno-hono.ts',
    exactIds: false,
  },
  {
    name: 'deno-plant-store',
    runtime: 'deno',
    label: 'plant-store `store.fetch` on `Deno.serve`',
    file: 'deno-plant-store.ts',
    exactIds: true,
    needs: 'dist',
  },
  ...(['bun', 'deno'] as const).map((runtime): RuntimeServer => ({
    name: `${runtime}-plant-store-bounded`,
    runtime,
    label: 'plant-store, its store keeping only the newest 100,000 plants',
    file: `${runtime}-plant-store.ts`,
    env: { BENCH_KEEP_PLANTS: '100000' },
    exactIds: true,
    needs: 'dist',
    variant: true,
  })),
  ...(['bun', 'deno'] as const).flatMap((runtime) =>
    (['arrayBuffer', 'getReader', 'bodyThenArrayBuffer', 'signalThenText'] as const).map(
      (reader): RuntimeServer => ({
        name: `${runtime}-bare-${reader.toLowerCase()}`,
        runtime,
        label: `bare handler, body read: \`${reader}\``,
        file: `${runtime}-bare.ts`,
        env: { BENCH_BODY_READER: reader },
        exactIds: true,
        variant: true,
      }),
    ),
  ),
];

/** The servers a run measures unless `--servers` says otherwise: all but the variants. */
export const DEFAULT_SERVERS: readonly string[] = RUNTIME_SERVERS.filter((s) => !s.variant).map(
  (s) => s.name,
);

/**
 * What `--decay` serves unless `--servers` says otherwise: each plant-store server, then its
 * runtime's bare server as the control. A shared machine moves a window by 10-30% either way
 * (bench/RESULTS.md), so a window of plant-store's below its first says little until the bare
 * server, in the same run, holds steadier than it.
 */
export const DECAY_SERVERS: readonly string[] = [
  'bun-plant-store',
  'bun-bare',
  'deno-plant-store',
  'deno-bare',
];

/** The servers a `--servers` list names, in the list's order; throws on an unknown name. */
export function serversNamed(list: string): RuntimeServer[] {
  return list.split(',').map((name) => {
    const server = RUNTIME_SERVERS.find((s) => s.name === name.trim());
    if (server === undefined) {
      const known = RUNTIME_SERVERS.map((s) => s.name).join(', ');
      throw new TypeError(`unknown server ${name}; known: ${known}`);
    }
    return server;
  });
}

/** The bare server a server's ratio is to: its runtime's `bare`. */
export function baselineOf(server: RuntimeServer): string {
  return `${server.runtime}-bare`;
}
