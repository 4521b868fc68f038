/**
 * `createPlantClient`: `POST /plants` with the id exact on the wire, typed errors, and retries
 * of what the contract's idempotent replay makes safe.
 *
 * @module
 */

import type { NewPlant, Plant, PlantIdInput } from '../types.ts';
import { sleep, untilAborted } from './abortable.ts';
import {
  B64TOKEN,
  checkFetch,
  checkNames,
  checkNumber,
  checkRetry,
  checkToken,
  DEFAULT_CLIENT_TIMEOUT_MS,
  isSignal,
  kind,
  OPTION_NAMES,
  plantsUrl,
} from './client-options.ts';
import { PlantClientError } from './plant-client-error.ts';
import { plantJson } from './plant-json.ts';
import { readAnswer } from './read-answer.ts';
import type { CreatePlantClientOptions, CreatePlantOptions, PlantClient } from './types.ts';

const CALL_NAMES = ['signal'];
/** The statuses a proxy or the store answers when a later try may succeed. */
const RETRIED_STATUSES = new Set<number | undefined>([429, 502, 503, 504]);
const encoder = new TextEncoder();

/**
 * Makes a client of the Plant Store API. Its `createPlant` sends the id exactly, whether a
 * `bigint`, a safe-integer `number` or a decimal string, and resolves to the stored Plant.
 *
 * A failed connection and `429`, `502`, `503` and `504` are retried (see `RetryOptions`): the
 * same plant again is a replay, so a create whose answer was lost is never stored twice. Any
 * other answer is final: `409` (another plant has the id) and every other `4xx` reject at once.
 * It rejects with a `PlantClientError` whose `code` says why; an abort rejects with the signal's
 * reason.
 *
 * @param options Where the API is, the token, and optionally `fetch`, `retry`, `timeoutMs`.
 * @returns The client.
 * @throws {TypeError} At once, for an unknown option name or an option that cannot work.
 * @example
 * ```ts
 * import { createPlantClient } from 'plant-store/client';
 *
 * const client = createPlantClient({ baseUrl: 'http://127.0.0.1:3000', token: 's3cr3t' });
 * const plant = await client.createPlant({ id: 9223372036854775807n, name: 'Monstera' });
 * ```
 */
export function createPlantClient(options: CreatePlantClientOptions): PlantClient {
  checkNames('createPlantClient', options, OPTION_NAMES);
  const url = plantsUrl(options.baseUrl);
  const token = checkToken(options.token);
  const send = checkFetch(options.fetch);
  const retry = checkRetry(options.retry);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
  checkNumber('timeoutMs', timeoutMs, 1);

  async function createPlant(plant: NewPlant<PlantIdInput>, call: CreatePlantOptions = {}) {
    checkNames('createPlant', call, CALL_NAMES);
    const signal = call.signal;
    if (signal !== undefined && !isSignal(signal)) {
      throw new TypeError('createPlant: signal must be an AbortSignal');
    }
    const body = encoder.encode(plantJson(plant));
    if (signal?.aborted) throw signal.reason;
    // One signal for every attempt and wait: it fires on the caller's abort and at the deadline.
    const controller = new AbortController();
    const follow = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', follow, { once: true });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return await attemptUntilFinal(body, controller.signal, signal, Date.now() + timeoutMs);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    }
  }

  async function attemptUntilFinal(
    body: Uint8Array<ArrayBuffer>,
    inner: AbortSignal,
    outer: AbortSignal | undefined,
    deadline: number,
  ): Promise<Plant> {
    let failure: unknown;
    let wait = 0;
    for (let attempts = 1; ; attempts += 1) {
      try {
        if (attempts > 1) await sleep(wait, inner);
        return await attempt(body, inner);
      } catch (error) {
        if (outer?.aborted) throw outer.reason;
        if (inner.aborted) {
          const cause = error === inner.reason ? failure : error;
          throw new PlantClientError(
            'ERR_CLIENT_TIMEOUT',
            `POST ${url} had no answer within ${timeoutMs} ms`,
            cause === undefined ? {} : { cause },
          );
        }
        const next = attempts < retry.attempts ? waitFor(error, attempts) : undefined;
        if (next === undefined || Date.now() + next >= deadline) throw error;
        failure = error;
        wait = next;
      }
    }
  }

  /** The wait before retrying after `error` on attempt `attempts`; `undefined`: final. */
  function waitFor(error: unknown, attempts: number): number | undefined {
    if (!(error instanceof PlantClientError)) return undefined;
    if (error.code !== 'ERR_NETWORK' && !RETRIED_STATUSES.has(error.status)) return undefined;
    const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempts - 1));
    const jittered = backoff / 2 + (Math.random() * backoff) / 2;
    if (error.retryAfter === undefined) return jittered;
    const asked = error.retryAfter * 1000;
    return asked > retry.maxDelayMs ? undefined : Math.max(asked, jittered);
  }

  async function attempt(body: Uint8Array<ArrayBuffer>, inner: AbortSignal): Promise<Plant> {
    const bearer = typeof token === 'string' ? token : await freshToken(token, inner);
    const request = new Request(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
      },
      body,
      signal: inner,
    });
    let response: unknown;
    try {
      // A fetch that throws synchronously fails this attempt like one that rejects.
      response = await untilAborted((async () => send(request))(), inner);
    } catch (error) {
      throw inner.aborted ? error : networkError(error);
    }
    if (!isResponse(response)) {
      throw new TypeError(`createPlant: fetch resolved to ${kind(response)}, not a Response`);
    }
    try {
      return await readAnswer(response, body.byteLength, inner);
    } catch (error) {
      // A body cut off midway is a failed connection too.
      throw error instanceof PlantClientError || inner.aborted ? error : networkError(error);
    }
  }

  function networkError(error: unknown): PlantClientError {
    return new PlantClientError('ERR_NETWORK', `POST ${url} failed: ${messageOf(error)}`, {
      cause: error,
    });
  }

  return { createPlant };
}

/** The bearer token a token function hands over, checked. */
async function freshToken(
  token: () => string | Promise<string>,
  inner: AbortSignal,
): Promise<string> {
  const value = await untilAborted((async () => token())(), inner);
  if (typeof value !== 'string' || !B64TOKEN.test(value)) {
    throw new TypeError(
      `createPlantClient: token() handed over ${typeof value === 'string' ? 'a string that is not' : kind(value) + ', not'} a bearer token (RFC 6750 b64token)`,
    );
  }
  return value;
}

function isResponse(value: unknown): value is Response {
  const response = value as Response | null;
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.status === 'number' &&
    typeof response.headers?.get === 'function'
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
