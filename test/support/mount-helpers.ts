/**
 * What the framework entries' tests share: a sequence of requests, and a check that a framework
 * answers each exactly as a plant store's own `fetch` does (status, headers, body).
 *
 * @module
 */

import assert from 'node:assert/strict';
import {
  createPlantStore,
  type CreatePlantStoreOptions,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import { withDeadline } from './node-helpers.ts';

export const TOKEN = 's3cr3t';

/** A store with the test token; errors are collected rather than printed. */
export function mountStore(options: Partial<CreatePlantStoreOptions> = {}) {
  const errors: unknown[] = [];
  const store = createPlantStore({
    verifier: createStaticTokenVerifier([TOKEN]),
    onError: (error) => errors.push(error),
    ...options,
  });
  return { store, errors };
}

/** One request, its path below the mount point. */
export interface MountCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };

/** The sequence: creates (exact int64 ids, a conflict), every refusal, and the document. */
export const MOUNT_CASES: readonly MountCase[] = [
  {
    name: 'a create',
    method: 'POST',
    path: '/plants',
    headers: json,
    body: '{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}',
  },
  {
    name: 'a neighbouring int64 id',
    method: 'POST',
    path: '/plants',
    headers: json,
    body: '{"id": 9007199254740992, "name": "Pilea"}',
  },
  {
    name: 'a replay',
    method: 'POST',
    path: '/plants',
    headers: json,
    body: '{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}',
  },
  {
    name: 'a conflict',
    method: 'POST',
    path: '/plants',
    headers: json,
    body: '{"id": 9007199254740993, "name": "Ficus"}',
  },
  {
    name: 'no token',
    method: 'POST',
    path: '/plants',
    headers: { 'content-type': 'application/json' },
    body: '{"id": 1, "name": "x"}',
  },
  {
    name: 'a wrong token',
    method: 'POST',
    path: '/plants',
    headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
    body: '{}',
  },
  { name: 'malformed JSON', method: 'POST', path: '/plants', headers: json, body: '{"id": 1,' },
  {
    name: 'a text body',
    method: 'POST',
    path: '/plants',
    headers: { ...auth, 'content-type': 'text/plain' },
    body: 'hello',
  },
  {
    name: 'a form body',
    method: 'POST',
    path: '/plants',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'id=1&name=x',
  },
  { name: 'an empty body', method: 'POST', path: '/plants', headers: json, body: '' },
  { name: 'a missing name', method: 'POST', path: '/plants', headers: json, body: '{"id": 2}' },
  { name: 'GET on /plants', method: 'GET', path: '/plants' },
  { name: 'DELETE on /plants', method: 'DELETE', path: '/plants', headers: auth },
  { name: 'the document', method: 'GET', path: '/openapi.json' },
  { name: 'the document with a query', method: 'GET', path: '/openapi.json?x=1' },
  { name: 'PUT on the document', method: 'PUT', path: '/openapi.json', headers: json, body: '{}' },
];

/** Headers a server adds on the wire that a `Response` from `fetch` does not carry. */
const WIRE_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

/** A response's parts that must match: status, headers (but the wire's own) and body. */
export async function answerOf(response: Response) {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!WIRE_HEADERS.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

/** A client for `assertAnswersAsFetch`: `fetch` itself, or one over another protocol. */
export type WireClient = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | null },
) => Promise<Response>;

/**
 * Sends every case to `base` (a framework's URL with its mount path) over a real socket, with
 * `send` (by default `fetch`, HTTP/1.1), and to `reference` (a store with the same base path),
 * and asserts equal answers.
 */
export async function assertAnswersAsFetch(
  base: string,
  reference: (request: Request) => Promise<Response>,
  cases: readonly MountCase[] = MOUNT_CASES,
  send: WireClient = fetch,
): Promise<void> {
  for (const { name, method, path, headers = {}, body } of cases) {
    const init = { method, headers, body: body ?? null };
    const wire = await withDeadline(send(base + path, init), name);
    const direct = await reference(new Request(base + path, init));
    assert.deepEqual(await answerOf(wire), await answerOf(direct), name);
  }
}
