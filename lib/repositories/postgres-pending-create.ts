import type { CreatePlantOutcome, NewPlant, Plant } from '../types.ts';

/** One create of the PostgreSQL repository; it settles once: stored, failed or aborted. */
export class PendingCreate {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
  done = false;
  readonly #resolve: (outcome: CreatePlantOutcome) => void;
  readonly #reject: (error: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;

  constructor(
    plant: NewPlant,
    signal: AbortSignal | undefined,
    resolve: (outcome: CreatePlantOutcome) => void,
    reject: (error: unknown) => void,
  ) {
    // Text, never a JS number: a double cannot hold every int64.
    this.id = String(plant.id);
    this.name = plant.name;
    this.tag = plant.tag ?? null;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
  }

  /** Fails the create as soon as its signal fires, and tells `onAbort`. */
  watch(onAbort: (pending: PendingCreate) => void): void {
    const signal = this.#signal;
    if (signal === undefined) return;
    this.#onAbort = () => {
      this.fail(signal.reason);
      onAbort(this);
    };
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Whether the create is settled, failing it first if its signal has fired unheard. */
  settled(): boolean {
    if (!this.done && this.#signal?.aborted === true) this.fail(this.#signal.reason);
    return this.done;
  }

  /** The plant as stored when this create's row went in. */
  get plant(): Plant {
    return this.tag === null ? { name: this.name } : { name: this.name, tag: this.tag };
  }

  succeed(outcome: CreatePlantOutcome): void {
    if (this.#settle()) this.#resolve(outcome);
  }

  fail(error: unknown): void {
    if (this.#settle()) this.#reject(error);
  }

  #settle(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.#onAbort !== undefined) this.#signal?.removeEventListener('abort', this.#onAbort);
    return true;
  }
}
