import type { Deadline, Deadlines } from './_deadlines.ts';
import type { ClientWatch } from './_plain-handler.ts';
import { PlantApiError } from './errors.ts';

/**
 * The life of one create: it ends when the work is done, the deadline passes or the client goes,
 * whichever comes first. Work the create waits for goes through `wait`, which gives up when the
 * life ends early.
 *
 * What costs is made only when needed: the `AbortSignal` handed to the verifier and the
 * repository only when one of them reads it (on Node 20 an `AbortController` with a listener
 * costs more than the plant logic, and most stores never look at it), and the deadline is an
 * entry in the store's shared `Deadlines`, not a timer of its own.
 */
export class RequestLife implements Deadline {
  /** Set by `Deadlines.start`. */
  dueAt = 0;
  #over = false;
  #reason: unknown;
  #giveUp: ((reason: unknown) => void) | undefined;
  #controller: AbortController | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #client: ClientWatch;
  readonly #deadlines: Deadlines;

  /**
   * @param client The client's presence.
   * @param deadlines The store's deadlines; this life's starts now.
   */
  constructor(client: ClientWatch, deadlines: Deadlines) {
    this.#client = client;
    this.#deadlines = deadlines;
    deadlines.start(this);
  }

  /** The signal for collaborators; fires when this life ends early. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      this.#checkClient();
      if (this.#over) this.#controller.abort(this.#reason);
      else {
        const onLeave = () => this.#end(this.#client.reason);
        this.#client.addEventListener('abort', onLeave, { once: true });
        this.#unsubscribe = () => this.#client.removeEventListener('abort', onLeave);
      }
    }
    return this.#controller.signal;
  }

  /** Whether the life ended early (a deadline or a client that left). */
  get ended(): boolean {
    this.#checkClient();
    return this.#over;
  }

  /** Throws the reason when the life ended early, so late work stops. */
  throwIfEnded(): void {
    if (this.ended) throw this.#reason;
  }

  /**
   * Waits for `work`, or rejects with the reason as soon as the life ends early; the late
   * result, whatever it is, is dropped. One wait at a time.
   */
  wait<T>(work: PromiseLike<T>): Promise<T> {
    this.throwIfEnded();
    // One promise settled by whichever comes first, rather than Promise.race, which costs an
    // array, an iterator and two reactions per wait.
    return new Promise<T>((resolve, reject) => {
      this.#giveUp = reject;
      work.then(resolve, reject);
    });
  }

  /** The deadline passed: called by `Deadlines`. */
  expire(): void {
    this.#end(new PlantApiError('ERR_TIMEOUT'));
  }

  /** Releases the deadline and the client listener once the work is done. */
  dispose(): void {
    this.#deadlines.stop(this);
    this.#unsubscribe?.();
  }

  #checkClient(): void {
    // Without a signal nobody subscribed to the client: notice its leaving when asked.
    if (!this.#over && this.#client.aborted) this.#end(this.#client.reason);
  }

  #end(reason: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#giveUp?.(reason);
  }
}
