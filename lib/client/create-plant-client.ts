import type { NewPlant, Plant, PlantIdInput } from '../types.ts';
import { abortable, sleep } from './abortable.ts';
import { checkNames, checkToken, clientSettings, kind } from './client-options.ts';
import { PlantClientError } from './plant-client-error.ts';
import { plantJson, plantSent } from './plant-json.ts';
import { readAnswer } from './read-answer.ts';
import type { CreatePlantClientOptions, CreatePlantOptions, PlantClient } from './types.ts';

/** The statuses a proxy or the store answers when a later try may succeed. */
const RETRIED_STATUSES = new Set<number | undefined>([429, 502, 503, 504]);
const encoder = new TextEncoder();

/**
 * Makes a client of the Plant Store API.
 *
 * Its `createPlant` sends the id exactly, whether a `bigint`, a safe-integer `number` or a
 * decimal string, and resolves to the stored Plant. A failed connection and `429`, `502`, `503`
 * and `504` are retried (see `RetryOptions`): the same plant again is a replay, so a create whose
 * answer was lost is never stored twice. Any other answer is final, and no redirect is followed;
 * a failure rejects with a `PlantClientError` whose `code` says why, an abort with the signal's
 * reason.
 *
 * @param options Where the API is and the token; optionally `fetch`, `retry` and `timeoutMs`.
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
  const { url, token, fetch, attempts, baseDelayMs, maxDelayMs, timeoutMs } =
    clientSettings(options);

  async function createPlant(plant: NewPlant<PlantIdInput>, call: CreatePlantOptions = {}) {
    checkNames('createPlant', call, ['signal']);
    // Read once: a 200 must answer the plant sent, whatever a getter would say next.
    const { id, name, tag } = plant;
    const sent = plantSent(name, tag);
    const body = encoder.encode(plantJson(id, sent));
    // One signal for every attempt and wait: the caller's abort or the deadline, whichever first.
    const timeout = AbortSignal.timeout(timeoutMs);
    const caller = call.signal;
    const signal = caller === undefined ? timeout : AbortSignal.any([caller, timeout]);
    const deadline = Date.now() + timeoutMs;
    let failure: unknown;
    let wait = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (attempt > 1) await sleep(wait, signal);
        return await send(body, sent, signal);
      } catch (error) {
        caller?.throwIfAborted();
        if (signal.aborted) {
          throw new PlantClientError(
            'ERR_CLIENT_TIMEOUT',
            `POST ${url} had no answer within ${timeoutMs} ms`,
            { cause: failure },
          );
        }
        const next = waitFor(error, attempt);
        if (next === undefined || Date.now() + next >= deadline) throw error;
        failure = error;
        wait = next;
      }
    }
  }

  /** The wait before retrying after `error` on attempt `attempt`; `undefined`: final. */
  function waitFor(error: unknown, attempt: number): number | undefined {
    if (attempt >= attempts || !(error instanceof PlantClientError)) return undefined;
    if (error.code !== 'ERR_NETWORK' && !RETRIED_STATUSES.has(error.status)) return undefined;
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const jittered = backoff / 2 + (Math.random() * backoff) / 2;
    if (error.retryAfter === undefined) return jittered;
    const asked = error.retryAfter * 1000;
    return asked > maxDelayMs ? undefined : Math.max(asked, jittered);
  }

  async function send(
    body: Uint8Array<ArrayBuffer>,
    sent: Plant,
    signal: AbortSignal,
  ): Promise<Plant> {
    signal.throwIfAborted();
    const bearer =
      typeof token === 'string'
        ? token
        : checkToken(await abortable(token(), signal), 'createPlant: what token() returned');
    const request = new Request(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
        'content-type': 'application/json',
      },
      body,
      // A redirect is the caller's to fix (baseUrl), never followed: see readAnswer.
      redirect: 'manual',
      signal,
    });
    let response: Response;
    try {
      // Inside the try: a fetch that throws synchronously fails this attempt like one that rejects.
      response = await abortable(fetch(request), signal);
    } catch (error) {
      throw signal.aborted ? error : networkError(error);
    }
    if (typeof response?.status !== 'number') {
      throw new TypeError(`createPlant: fetch resolved to ${kind(response)}, not a Response`);
    }
    try {
      return await readAnswer(response, sent, body.byteLength, signal);
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
