/**
 * What every contract case shares: the case and context types, `createCaseContext` (the library
 * under test and the transport a request goes through), `defineCases` (how a file lists its
 * cases) and the few helpers several steps use.
 *
 * Each request goes through a transport: a direct call of the handler, or a real HTTP round trip
 * to a server that serves it (`Deno.serve`, `Bun.serve`, `plant-store/node`). A case that watches
 * what only an in-process caller can see (the request's body stream or signal, a header a client
 * may not set) says so in `directOnly` and is skipped over HTTP. Every response a case sees through
 * `send` is validated against the OpenAPI document. No tsx, c8 or `node:test` here:
 * `node:assert/strict` is the one built-in, and Deno and Bun provide it.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type * as CorsModule from '../../lib/cors.ts';
import type * as PlantStoreModule from '../../lib/index.ts';
import type {
  CreatePlantOutcome,
  CreatePlantStoreOptions,
  NewPlant,
  PlantRepository,
  PlantRepositoryContext,
  PlantStore,
} from '../../lib/index.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import { type DeclaredAt, type SeenResponse, type Spy, spy, TOKEN } from '../support/web-fakes.ts';

/**
 * The library under test: `lib/` or the built `dist/`, which export the same; the core entry
 * and the CORS subpath, as one object.
 */
export type PlantStoreLibrary = typeof PlantStoreModule & typeof CorsModule;

/** A web-standard handler, as `store.fetch` and `store.handleCreatePlant` are. */
export type Handler = (request: Request) => Promise<Response>;

/** Delivers a request to a handler and hands back the response the caller gets. */
export type Transport = (handler: Handler, request: Request) => Promise<Response>;

/** A repository whose `create` records its calls. */
export interface RecordingRepository extends PlantRepository {
  /** The recorded `create`: `create.calls[i]` holds the plant and context of call `i`. */
  readonly create: Spy<
    [NewPlant, PlantRepositoryContext],
    CreatePlantOutcome | Promise<CreatePlantOutcome>
  >;
}

/** What a case gets: the library, the transport, and helpers built on both. */
export interface CaseContext {
  /** The library under test. */
  readonly lib: PlantStoreLibrary;
  /** Delivers a request and returns the raw response, unchecked. */
  readonly deliver: Transport;
  /** True when `deliver` goes through a real server rather than calling the handler. */
  readonly overHttp: boolean;
  /** Delivers a request and returns the response once it has been checked against the OpenAPI document. */
  readonly send: (handler: Handler, request: Request, where?: DeclaredAt) => Promise<SeenResponse>;
  /** A repository over `inner` (default: a new in-memory one) that records its calls. */
  readonly recordingRepository: (inner?: PlantRepository) => RecordingRepository;
  /** A store over a recording repository, the static verifier for `TOKEN` and a recording `onError`. */
  readonly testStore: (options?: Partial<CreatePlantStoreOptions>) => {
    store: PlantStore;
    repository: RecordingRepository;
    onError: Spy<[unknown, unknown?], void>;
  };
}

/** One rule of the contract, as a check any runtime can run. */
export interface ConformanceCase {
  /** The rule's group, as `describe` names it: `handleCreatePlant: 2. authentication`. */
  readonly group: string;
  /** What the case checks, as `it` names it. */
  readonly name: string;
  /** Why the case needs an in-process call; absent when it also holds over HTTP. */
  readonly directOnly?: string;
  /** Runs the checks; rejects (an `AssertionError`) when the rule is broken. */
  readonly run: (t: CaseContext) => Promise<void> | void;
}

/**
 * Builds the context a case runs in, from the library and a transport.
 *
 * @param lib The library under test.
 * @param deliver How a request reaches a handler; default: a direct call.
 * @param overHttp True when `deliver` goes through a real server.
 * @returns The context to pass to each case's `run`.
 * @example
 * ```ts
 * import * as lib from '../../lib/index.ts';
 * const context = createCaseContext(lib);
 * for (const rule of methodCases) await rule.run(context);
 * ```
 */
export function createCaseContext(
  lib: PlantStoreLibrary,
  deliver: Transport = (handler, request) => handler(request),
  overHttp = false,
): CaseContext {
  const recordingRepository = (inner: PlantRepository = lib.createMemoryRepository()) => ({
    create: spy(inner.create.bind(inner)),
  });
  return {
    lib,
    deliver,
    overHttp,
    async send(handler, request, where = 'createPlant') {
      const response = await deliver(handler, request);
      const body = await assertMatchesOpenApi(response, where);
      return { status: response.status, headers: response.headers, body };
    },
    recordingRepository,
    testStore(options = {}) {
      const repository = recordingRepository();
      const onError = spy((_error: unknown, _context?: unknown) => {});
      const store = lib.createPlantStore({
        repository,
        verifier: lib.createStaticTokenVerifier([TOKEN]),
        onError,
        ...options,
      });
      return { store, repository, onError };
    },
  };
}

/** Adds one case to the group being defined, as `it` does. */
export type DefineCase = (name: string, run: ConformanceCase['run'], directOnly?: string) => void;

/**
 * Lists the cases of one group, the way `describe` and `it` would: `body` calls `it` once per
 * case, in order.
 *
 * @param group The group's name, as `describe` names it: `handleCreatePlant: 1. method`.
 * @param body Adds the group's cases through the `it` it is given.
 * @returns The group's cases.
 * @example
 * ```ts
 * export const methodCases = defineCases('handleCreatePlant: 1. method', (it) => {
 *   it('answers 405 to GET', async (t) => {
 *     // …
 *   });
 * });
 * ```
 */
export function defineCases(
  group: string,
  body: (it: DefineCase) => void,
): readonly ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  body((name, run, directOnly) => {
    cases.push(directOnly === undefined ? { group, name, run } : { group, name, run, directOnly });
  });
  return cases;
}

/** Why a case holds only for an in-process call: it watches the body stream. */
export const WATCHES_STREAM = 'watches how much of the request body stream the handler pulls';
/** Why a case holds only for an in-process call: it fails the body stream. */
export const FAILS_STREAM =
  'fails the request body stream midway, which over HTTP fails the client';
/** Why a case holds only for an in-process call: it sets Content-Length itself. */
export const SETS_LENGTH = 'sets Content-Length by hand, which an HTTP client computes itself';
/** Why a case holds only for an in-process call: it aborts the request's signal. */
export const USES_SIGNAL = "aborts the request's own signal, which only the server side can";
/** Why a case holds only for an in-process call: it keeps the body stream open. */
export const HOLDS_STREAM =
  'keeps the request body stream open, which an HTTP client would have to hold';

/** The one `TextEncoder` the cases share. */
export const encoder = new TextEncoder();
/** `JSON.stringify`, short, for request bodies. */
export const json = (value: unknown) => JSON.stringify(value);

/** Settles as `promise` does, or rejects with `why` when it takes longer than `ms`. */
export async function within<T>(ms: number, promise: Promise<T>, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${why} (over ${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The plant the repository was asked to store by its one call. */
export function storedBy(repository: RecordingRepository): NewPlant {
  assert.equal(repository.create.calls.length, 1);
  return repository.create.calls[0]?.[0] as NewPlant;
}
