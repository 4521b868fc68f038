import type { NewPlant, Plant, PlantIdInput } from '../types.ts';

/** Options of `createPlantClient`. */
export interface CreatePlantClientOptions {
  /**
   * Where the API lives: an absolute http(s) URL, with or without a path (`https://x.example/api`
   * calls `https://x.example/api/plants`); no credentials, query or fragment.
   */
  readonly baseUrl: string | URL;
  /** The bearer token, or a function (sync or async) handing one over before every attempt. */
  readonly token: string | (() => string | Promise<string>);
  /**
   * The `fetch` that sends each request; pass a store's `fetch` to call it in-process.
   * @default globalThis.fetch
   */
  readonly fetch?: ((request: Request) => Promise<Response>) | undefined;
  /**
   * When to try again: `false` for a single attempt.
   * @default { attempts: 5, baseDelayMs: 250, maxDelayMs: 10000 }
   */
  readonly retry?: RetryOptions | false | undefined;
  /**
   * The deadline of one `createPlant`, retries and waits included, in milliseconds.
   * @default 30000
   */
  readonly timeoutMs?: number | undefined;
}

/**
 * How a create is retried. Only what a replay makes safe is: a failed connection and `429`, `502`,
 * `503`, `504`. The wait doubles from `baseDelayMs` up to `maxDelayMs`, jittered; a `Retry-After`
 * is waited at least, and one past `maxDelayMs` or the deadline ends the retries.
 */
export interface RetryOptions {
  /**
   * The most requests one create sends, the first included.
   * @default 5
   */
  readonly attempts?: number | undefined;
  /**
   * The first wait, in milliseconds; each next one doubles.
   * @default 250
   */
  readonly baseDelayMs?: number | undefined;
  /**
   * The longest wait, in milliseconds, `Retry-After` included.
   * @default 10000
   */
  readonly maxDelayMs?: number | undefined;
}

/** Options of one `createPlant` call. */
export interface CreatePlantOptions {
  /**
   * Stops the create, retries included: it rejects with the signal's reason at once.
   * @default undefined
   */
  readonly signal?: AbortSignal | undefined;
}

/** A client of the Plant Store API. */
export interface PlantClient {
  /** `POST /plants`: stores the plant, or finds it stored (a replay); resolves to the Plant. */
  createPlant(plant: NewPlant<PlantIdInput>, options?: CreatePlantOptions): Promise<Plant>;
}
