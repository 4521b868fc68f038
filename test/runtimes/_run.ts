/**
 * Runs the contract's case list (`test/contract/`) on whatever runtime loads this file, the way the
 * thin entries (`node.ts`, `deno.ts`, `bun.ts`) share it: directly, then over real HTTP through
 * a server the entry starts. Runtime-neutral: web APIs and `node:assert` only.
 *
 * @module
 */

import type * as CorsModule from '../../lib/cors.ts';
import type * as CoreModule from '../../lib/index.ts';
import { conformanceCases } from '../contract/cases.ts';
import {
  type ConformanceCase,
  createCaseContext,
  type Handler,
  type PlantStoreLibrary,
  type Transport,
} from '../contract/context.ts';

/** How long one case may take before it fails as hung. */
const CASE_TIMEOUT_MS = 15_000;
/** The request header that tells the shared test server which handler a request is for. */
const HANDLER_HEADER = 'x-conformance-handler';

/** The counts of one run. */
export interface RunCounts {
  /** Cases that held. */
  passed: number;
  /** Cases that broke or hung. */
  failed: number;
  /** Cases that cannot run over this transport (see `ConformanceCase.directOnly`). */
  skipped: number;
}

/**
 * Loads the library under test: `lib/index.ts` (the source, the default) or `dist/index.js`
 * (the build, what `npm install` gets), as the entry's first argument says.
 *
 * @param which `'lib'` or `'dist'`.
 * @param subpath `'index'` or another module of the package, such as `'node'`.
 * @returns The module.
 * @example
 * ```ts
 * const lib = await loadLibrary('dist');
 * ```
 */
export async function loadLibrary<T>(which: string | undefined, subpath = 'index'): Promise<T> {
  if (which !== undefined && which !== 'lib' && which !== 'dist') {
    throw new TypeError(`the library is 'lib' or 'dist', not ${which}`);
  }
  const url =
    which === 'dist'
      ? new URL(`../../dist/${subpath}.js`, import.meta.url)
      : new URL(`../../lib/${subpath}.ts`, import.meta.url);
  return (await import(url.href)) as T;
}

/**
 * Loads what the case list needs of the library under test: the core entry and the CORS
 * subpath, as one object.
 *
 * @param which `'lib'` or `'dist'`.
 * @returns The merged modules.
 */
export async function loadPlantStore(which: string | undefined): Promise<PlantStoreLibrary> {
  const [core, cors] = await Promise.all([
    loadLibrary<typeof CoreModule>(which),
    loadLibrary<typeof CorsModule>(which, 'cors'),
  ]);
  return { ...core, ...cors };
}

/** What the transport sends a request with: `fetch`, or a client of another protocol. */
export type Send = (
  url: string,
  init: { method: string; headers: Headers; body: ArrayBuffer | null; redirect: 'manual' },
) => Promise<Response>;

/**
 * A router for one test server that serves many handlers: the transport registers each handler
 * it is given and names it in a request header, and `fetch` hands the request to that handler.
 * Cases build a store each, so one server serves them all. The transport sends with `fetch`
 * unless it is given another client (an HTTP/2 one, say).
 *
 * @returns `fetch`, for the server, and `transport(origin)`, for the cases.
 * @example
 * ```ts
 * const router = createHandlerRouter();
 * const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: router.fetch });
 * const deliver = router.transport(`http://127.0.0.1:${server.port}`);
 * ```
 */
export function createHandlerRouter() {
  const handlers = new Map<string, Handler>();
  const ids = new WeakMap<Handler, string>();
  function fetch(request: Request): Promise<Response> {
    const handler = handlers.get(request.headers.get(HANDLER_HEADER) ?? '');
    if (handler === undefined) throw new Error('the request names no registered handler');
    return handler(request);
  }
  function transport(origin: string, send: Send = globalThis.fetch): Transport {
    return async (handler, request) => {
      let id = ids.get(handler);
      if (id === undefined) {
        id = String(handlers.size);
        ids.set(handler, id);
        handlers.set(id, handler);
      }
      const { pathname, search } = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set(HANDLER_HEADER, id);
      // Buffered, so the client sends a Content-Length as most clients do; streamed bodies are
      // the direct-only cases' business.
      const body = request.body === null ? null : await request.arrayBuffer();
      return send(`${origin}${pathname}${search}`, {
        method: request.method,
        headers,
        body,
        redirect: 'manual',
      });
    };
  }
  return { fetch, transport };
}

/**
 * Runs every case against `lib` through `deliver`, one at a time, printing one line per case
 * and a closing `N passed, N failed, N skipped` line.
 *
 * @param lib The library under test.
 * @param label What the run is, for the output: `Deno 2.9.6 direct`.
 * @param deliver The transport; default: a direct call.
 * @param overHttp True when `deliver` goes over HTTP: the direct-only cases are skipped.
 * @param skips Cases this runtime cannot host, by `group › name`, each with its reason.
 * @returns The counts.
 * @example
 * ```ts
 * const counts = await runConformance(lib, 'Node v24.21.0 direct');
 * ```
 */
export async function runConformance(
  lib: PlantStoreLibrary,
  label: string,
  deliver?: Transport,
  overHttp = false,
  skips: ReadonlyMap<string, string> = new Map(),
): Promise<RunCounts> {
  const context = createCaseContext(lib, deliver, overHttp);
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const rule of conformanceCases) {
    const title = `${rule.group} › ${rule.name}`;
    const skip = overHttp && rule.directOnly !== undefined ? rule.directOnly : skips.get(title);
    if (skip !== undefined) {
      counts.skipped += 1;
      console.log(`skip - ${title} (${skip})`);
      continue;
    }
    try {
      await withTimeout(rule, context);
      counts.passed += 1;
    } catch (error) {
      counts.failed += 1;
      console.log(`not ok - ${title}`);
      console.log(String((error as Error)?.stack ?? error).replace(/^/gm, '    '));
    }
  }
  console.log(
    `${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
  );
  return counts;
}

/** Runs a case, failing it when it has not settled within `CASE_TIMEOUT_MS`. */
async function withTimeout(
  rule: ConformanceCase,
  context: ReturnType<typeof createCaseContext>,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`hung for ${CASE_TIMEOUT_MS} ms`)), CASE_TIMEOUT_MS);
  });
  try {
    await Promise.race([rule.run(context), hung]);
  } finally {
    clearTimeout(timer);
  }
}
