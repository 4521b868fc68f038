/**
 * `createPlantClient`: `POST /plants` with the id exact on the wire, typed errors, and retries
 * of what the contract's idempotent replay makes safe.
 *
 * @module
 */

import type { NewPlant, Plant, PlantIdInput } from '../types.ts';
import { abortable, sleep } from './abortable.ts';
import {
  B64TOKEN,
  checkFetch,
  checkNames,
  checkNumber,
  checkRetry,
  checkToken,
  DEFAULT_CLIENT_TIMEOUT_MS,
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
    const body = encoder.encode(plantJson(plant));
    // One signal for every attempt and wait: the caller's abort or the deadline, whichever first.
    const deadline = AbortSignal.timeout(timeoutMs);
    const caller = call.signal;
    const signal = caller === undefined ? deadline : AbortSignal.any([caller, deadline]);
    const giveUpAt = Date.now() + timeoutMs;
    let failure: unknown;
    let wait = 0;
    for (let attempts = 1; ; attempts += 1) {
      try {
        if (attempts > 1) await sleep(wait, signal);
        return await attempt(body, signal);
      } catch (error) {
        caller?.throwIfAborted();
        if (signal.aborted) {
          throw new PlantClientError(
            'ERR_CLIENT_TIMEOUT',
            `POST ${url} had no answer within ${timeoutMs} ms`,
            { cause: failure },
          );
        }
        const next = attempts < retry.attempts ? waitFor(error, attempts) : undefined;
        if (next === undefined || Date.now() + next >= giveUpAt) throw error;
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

  async function attempt(body: Uint8Array<ArrayBuffer>, signal: AbortSignal): Promise<Plant> {
    signal.throwIfAborted();
    const bearer = typeof token === 'string' ? token : await freshToken(token, signal);
    const request = new Request(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
      },
      body,
      signal,
    });
    let response: Response;
    try {
      // Inside the try: a fetch that throws synchronously fails this attempt like one that rejects.
      response = await abortable(send(request), signal);
    } catch (error) {
      throw signal.aborted ? error : networkError(error);
    }
    if (typeof response?.status !== 'number') {
      throw new TypeError(`createPlant: fetch resolved to ${kind(response)}, not a Response`);
    }
    try {
      return await readAnswer(response, body.byteLength, signal);
    } catch (error) {
      // A body cut off midway is a failed connection too.
      throw error instanceof PlantClientError || signal.aborted ? error : networkError(error);
    }
  }

  function networkError(cause: unknown): PlantClientError {
    return new PlantClientError('ERR_NETWORK', `POST ${url} failed`, { cause });
  }

  return { createPlant };
}

/** The bearer token a token function hands over, checked. */
async function freshToken(
  token: () => string | Promise<string>,
  signal: AbortSignal,
): Promise<string> {
  const value = await abortable(token(), signal);
  if (typeof value !== 'string' || !B64TOKEN.test(value)) {
    throw new TypeError(
      `createPlantClient: token() handed over ${typeof value === 'string' ? 'a string that is not' : kind(value) + ', not'} a bearer token (RFC 6750 b64token)`,
    );
  }
  return value;
}
