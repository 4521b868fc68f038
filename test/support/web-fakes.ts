/**
 * Runtime-neutral test helpers: web-standard requests, bodies and spies, with no `node:test`,
 * tsx or c8, so the same helpers serve `node:test` on Node and the plain runners on Deno and Bun
 * (`test/runtimes/`). `fakes.ts` re-exports them next to its `node:test` mocks.
 *
 * @module
 */

import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../../lib/index.ts';
import { assertMatchesOpenApi } from './openapi.ts';

/** The token the fake verifier accepts. */
export const TOKEN = 'test-token.0123456789~+/=';

/** A `POST /plants` request with the test token and a JSON content type, unless overridden. */
export function plantRequest(
  body: BodyInit | null,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Request {
  return new Request('http://localhost/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    ...init,
  } as RequestInit);
}

/** A response as the tests check it: status, headers, and the body already parsed. */
export interface SeenResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** Where a response is declared in the OpenAPI document: the operation or a shared component. */
export type DeclaredAt = 'createPlant' | 'NotFound' | 'MethodNotAllowed';

/**
 * Sends a request to a handler and checks the response against the OpenAPI document before
 * handing it back, so every response a test sees is one the document declares.
 */
export async function send(
  handler: (request: Request) => Promise<Response>,
  request: Request,
  where: DeclaredAt = 'createPlant',
): Promise<SeenResponse> {
  const response = await handler(request);
  const body = await assertMatchesOpenApi(response, where);
  return { status: response.status, headers: response.headers, body };
}

/**
 * A body stream that counts how many bytes were pulled from it. It produces nothing until read
 * (high-water mark 0), so `pulled === 0` proves the body was never read.
 */
export function countingStream(chunks: Iterable<Uint8Array>) {
  const iterator = chunks[Symbol.iterator]();
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = iterator.next();
        if (next.done) return controller.close();
        state.pulled += next.value.byteLength;
        controller.enqueue(next.value);
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

/** Endless chunks of `size` bytes of spaces. */
export function* endlessChunks(size: number): Generator<Uint8Array> {
  for (;;) yield new Uint8Array(size).fill(0x20);
}

/** A promise that never settles: a hung collaborator. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** A function that records the arguments of every call in `calls`, then runs `impl`. */
export type Spy<A extends unknown[], R> = ((...args: A) => R) & { readonly calls: A[] };

/**
 * Wraps `impl` so that every call's arguments are recorded, like `mock.fn` of `node:test` but
 * on any runtime.
 */
export function spy<A extends unknown[], R>(impl: (...args: A) => R): Spy<A, R> {
  const calls: A[] = [];
  const fn = (...args: A): R => {
    calls.push(args);
    return impl(...args);
  };
  return Object.assign(fn, { calls });
}

/**
 * A repository over a `Map` a test reads back to see exactly which plants were stored; `first`,
 * when given, is awaited by the first create before it stores (a create that lands late).
 */
export function mapRepository(first?: () => Promise<void>) {
  const plants = new Map<bigint, Plant>();
  let calls = 0;
  const repository: PlantRepository = {
    async create(plant: NewPlant): Promise<CreatePlantOutcome> {
      calls += 1;
      if (calls === 1 && first !== undefined) await first();
      const existing = plants.get(plant.id);
      if (existing !== undefined) return { created: false, existing };
      plants.set(
        plant.id,
        plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
      );
      return { created: true };
    },
  };
  return { repository, plants, calls: () => calls };
}
