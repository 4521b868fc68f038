/**
 * `plant-store/client` on whatever runtime loads this file, as the contract's case list runs
 * (`_run.ts`): plants with ids 2^63-1 and 2^63-2 created through the client, in-process through
 * `store.fetch` and over real HTTP when the runtime can listen, the repository then holding
 * exactly those ids; a `409` final; a `503` mid-create retried into one stored plant; a redirect
 * refused at once, never followed.
 * Runtime-neutral: web APIs and `node:assert` only.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type * as ClientModule from '../../lib/client.ts';
import type { PlantStore } from '../../lib/index.ts';
import { mapRepository } from '../support/web-fakes.ts';
import type { PlantStoreLibrary } from '../contract/context.ts';
import type { RunCounts } from './_run.ts';

/** The client under test: `lib/client.ts` or `dist/client.js`. */
export type ClientLibrary = typeof ClientModule;

/** Serves a handler over real HTTP and hands back its origin and how to stop it. */
export type Listen = (
  handler: (request: Request) => Promise<Response>,
) => Promise<{ readonly origin: string; close(): Promise<void> }>;

/** Where a check reaches its store: in-process, or at an origin that serves it. */
export type Reach = (
  store: PlantStore,
) => Promise<{ baseUrl: string; fetch?: Fetch; close(): Promise<void> }>;
type Fetch = (request: Request) => Promise<Response>;

const TOKEN = 'client-check-token';
const TOP = 9223372036854775807n;
const NEXT = 9223372036854775806n;

/** The reach of an in-process call: the client's `fetch` is the store's. */
export const inProcess: Reach = async (store) => ({
  baseUrl: 'http://in-process.invalid',
  fetch: store.fetch,
  close: async () => {},
});

/** The reach over HTTP through `listen`. */
export function overHttp(listen: Listen): Reach {
  return async (store) => {
    const server = await listen(store.fetch);
    return { baseUrl: server.origin, close: () => server.close() };
  };
}

/** One check, reached one way. */
type Check = (lib: PlantStoreLibrary, client: ClientLibrary, reach: Reach) => Promise<void>;

const checks: Array<[string, Check]> = [
  [
    'creates ids 2^63-1 and 2^63-2, and the repository holds exactly those',
    async (lib, client, reach) => {
      const { repository, plants } = mapRepository();
      const store = lib.createPlantStore({
        repository,
        verifier: lib.createStaticTokenVerifier([TOKEN]),
      });
      await withReach(reach, store, async (options) => {
        const plantClient = client.createPlantClient({ ...options, token: TOKEN });
        assert.deepEqual(
          await plantClient.createPlant({ id: TOP, name: 'Monstera', tag: 'aroid' }),
          {
            name: 'Monstera',
            tag: 'aroid',
          },
        );
        assert.deepEqual(await plantClient.createPlant({ id: String(NEXT), name: 'Fern' }), {
          name: 'Fern',
        });
      });
      assert.deepEqual(
        [...plants],
        [
          [TOP, { name: 'Monstera', tag: 'aroid' }],
          [NEXT, { name: 'Fern' }],
        ],
      );
    },
  ],
  [
    'rejects a 409 at once with the Error body, and a number past 2^53 before sending',
    async (lib, client, reach) => {
      const { repository, calls } = mapRepository();
      const store = lib.createPlantStore({
        repository,
        verifier: lib.createStaticTokenVerifier([TOKEN]),
      });
      await withReach(reach, store, async (options) => {
        const plantClient = client.createPlantClient({ ...options, token: TOKEN });
        await plantClient.createPlant({ id: TOP, name: 'Monstera' });
        const conflict = await plantClient
          .createPlant({ id: TOP, name: 'Fern' })
          .catch((e: unknown) => e);
        assert.ok(conflict instanceof client.PlantClientError, String(conflict));
        assert.equal(conflict.code, 'ERR_STATUS');
        assert.equal(conflict.status, 409);
        await assert.rejects(plantClient.createPlant({ id: 2 ** 53, name: 'Fern' }), TypeError);
      });
      assert.equal(calls(), 2);
    },
  ],
  [
    'retries a 503 mid-create into exactly one stored plant',
    async (lib, client, reach) => {
      // The first create outlives the store's deadline (503) and lands late: the retry replays it.
      let release = () => {};
      const late = new Promise<void>((resolve) => {
        release = resolve;
      });
      const { repository, plants, calls } = mapRepository(() => late);
      const store = lib.createPlantStore({
        repository,
        verifier: lib.createStaticTokenVerifier([TOKEN]),
        timeoutMs: 50,
        onError: () => {},
      });
      await withReach(reach, store, async (options) => {
        const plantClient = client.createPlantClient({
          ...options,
          // Read before each attempt: the second lets the first create land, so the retry replays it.
          token: () => {
            if (calls() === 1) release();
            return TOKEN;
          },
          retry: { attempts: 5, baseDelayMs: 100, maxDelayMs: 200 },
        });
        assert.deepEqual(await plantClient.createPlant({ id: TOP, name: 'Monstera' }), {
          name: 'Monstera',
        });
      });
      assert.equal(calls(), 2);
      assert.deepEqual([...plants], [[TOP, { name: 'Monstera' }]]);
    },
  ],
  [
    'rejects a redirect at once, naming its Location, and follows nothing',
    async (_lib, client, reach) => {
      const seen: string[] = [];
      let status = 0;
      // Anything but the create is a Plant-shaped 200: a followed redirect would resolve.
      const moved = {
        fetch: async (request: Request) => {
          const { pathname } = new URL(request.url);
          seen.push(`${request.method} ${pathname}`);
          if (pathname !== '/plants') return Response.json({ name: 'Monstera' });
          return new Response(null, { status, headers: { location: '/elsewhere' } });
        },
      } as PlantStore;
      await withReach(reach, moved, async (options) => {
        const plantClient = client.createPlantClient({ ...options, token: TOKEN });
        for (status of [302, 307]) {
          seen.length = 0;
          const error = await plantClient
            .createPlant({ id: TOP, name: 'Monstera' })
            .catch((e: unknown) => e);
          assert.ok(error instanceof client.PlantClientError, String(error));
          assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
          assert.equal(error.status, status);
          assert.match(error.message, /redirects to \/elsewhere/);
          assert.deepEqual(seen, ['POST /plants']);
        }
      });
    },
  ],
];

async function withReach(
  reach: Reach,
  store: PlantStore,
  body: (options: { baseUrl: string; fetch?: Fetch }) => Promise<void>,
): Promise<void> {
  const { close, ...options } = await reach(store);
  try {
    await body(options);
  } finally {
    await close();
  }
}

/**
 * Runs the client's checks through `reach`, printing one line per failure and a closing
 * `N passed, N failed, N skipped` line.
 *
 * @param lib The core library under test, for the stores.
 * @param client The client under test.
 * @param label What the run is, for the output: `Deno 2.9.6 client over HTTP`.
 * @param reach How the client reaches each store.
 * @returns The counts.
 * @example
 * ```ts
 * const counts = await runClientChecks(lib, client, 'Node v24.21.0 client in-process', inProcess);
 * ```
 */
export async function runClientChecks(
  lib: PlantStoreLibrary,
  client: ClientLibrary,
  label: string,
  reach: Reach,
): Promise<RunCounts> {
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const [name, check] of checks) {
    try {
      await within(15_000, check(lib, client, reach), name);
      counts.passed += 1;
    } catch (error) {
      counts.failed += 1;
      console.log(`not ok - client › ${name}`);
      console.log(String((error as Error)?.stack ?? error).replace(/^/gm, '    '));
    }
  }
  console.log(
    `${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  );
  return counts;
}

async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: hung for ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
