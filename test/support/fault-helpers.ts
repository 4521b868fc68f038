/**
 * Helpers for the fault tests behind `serve`: raw creates over a socket, checks of raw
 * answers against the OpenAPI document, and a way to force a garbage collection.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { delay, parseRawResponse, rawClient, withDeadline } from './node-helpers.ts';
import { assertMatchesOpenApi } from './openapi.ts';

/** The raw head of a `POST /plants` with a token and a JSON body, keep-alive unless asked. */
export function rawPlantRequest(
  body: string,
  token: string,
  { close = true, contentLength = Buffer.byteLength(body) } = {},
): string {
  return (
    'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${contentLength}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${body}`
  );
}

/** A response read off a raw socket, already checked against the OpenAPI document. */
export interface CheckedResponse {
  readonly status: number;
  readonly body: unknown;
}

/** Sends one request on its own connection (`Connection: close`) and checks the answer. */
export async function exchange(port: number, payload: string): Promise<CheckedResponse> {
  const client = await rawClient(port);
  client.socket.write(payload);
  await withDeadline(client.closed, 'the server to answer and close', 15_000);
  return checkRaw(client.text());
}

/** Parses one raw HTTP response and validates it against the OpenAPI document. */
export async function checkRaw(text: string): Promise<CheckedResponse> {
  const raw = parseRawResponse(text);
  const response = new Response(raw.body, {
    status: raw.status,
    headers: [...raw.headers].filter(([name]) => name !== 'transfer-encoding'),
  });
  return { status: raw.status, body: await assertMatchesOpenApi(response) };
}

/** How many active resources of each type (`process.getActiveResourcesInfo()`) there are. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/**
 * Waits (bounded) until no resource type is more numerous than in `baseline`; fails naming
 * what stayed. Polling, because sockets and timers close a few ticks after the last byte.
 */
export async function assertResourcesBackTo(
  baseline: Record<string, number>,
  what: string,
  ms = 8000,
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const now = activeResources();
    const grown = Object.entries(now).filter(([type, n]) => n > (baseline[type] ?? 0));
    if (grown.length === 0) return;
    if (Date.now() > until) {
      assert.fail(
        `${what}: resources still held: ${JSON.stringify(Object.fromEntries(grown))} over ${JSON.stringify(baseline)}`,
      );
    }
    await delay(50);
  }
}

let gcFunction: (() => void) | undefined;

/** `gc()`, made available at run time (the test runner does not pass `--expose-gc`). */
export function collectGarbage(): void {
  if (gcFunction === undefined) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
}

/** Collects garbage until every weak reference is cleared (bounded), and returns how many stay. */
export async function survivors(refs: readonly WeakRef<object>[]): Promise<number> {
  let alive = refs.length;
  for (let round = 0; round < 30 && alive > 0; round++) {
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
    alive = refs.filter((ref) => ref.deref() !== undefined).length;
    if (alive > 0) await delay(20);
  }
  return alive;
}

/** The hard limit on open files of this process, from `/proc/self/limits` (Linux), if known. */
export async function openFileLimit(): Promise<number | undefined> {
  try {
    const { readFile } = await import('node:fs/promises');
    const limits = await readFile('/proc/self/limits', 'utf8');
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
    if (match === null) return undefined;
    return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
  } catch {
    return undefined;
  }
}
