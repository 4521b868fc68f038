/** A deadline in a `Deadlines` queue: a node of its list, handed back by `start`. */
export interface Deadline {
  /** When it falls due, in `performance.now()` milliseconds. */
  readonly dueAt: number;
  /** Called once, when the deadline passes while it is still in the queue. */
  readonly expire: () => void;
  previous: Deadline | undefined;
  next: Deadline | undefined;
}

/**
 * The deadlines of a store's creates in flight, all on one timer.
 *
 * Every create gets the same timeout, so deadlines fall due in the order they start: a linked
 * list in start order is the queue, and one timer armed for its oldest entry serves them all.
 * Starting and stopping a deadline cost a clock read and a few field writes, against a
 * `setTimeout` and a `clearTimeout` per request, which on Node 20 cost more than the rest of a
 * create (see `bench/RESULTS.md`).
 *
 * The timer is cleared whenever the queue empties, so an idle store holds no timer; while a
 * create is in flight the timer keeps the process alive, so even a collaborator that waits on
 * nothing at all gets its `503` at the deadline.
 */
export class Deadlines {
  readonly #timeoutMs: number;
  #oldest: Deadline | undefined;
  #newest: Deadline | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @param timeoutMs The timeout of every deadline, in milliseconds. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Starts a deadline `timeoutMs` from now; `expire` is called if it is not stopped by then. */
  start(expire: () => void): Deadline {
    const deadline: Deadline = {
      dueAt: performance.now() + this.#timeoutMs,
      expire,
      previous: this.#newest,
      next: undefined,
    };
    if (this.#newest === undefined) this.#oldest = deadline;
    else this.#newest.next = deadline;
    this.#newest = deadline;
    this.#timer ??= setTimeout(this.#fire, this.#timeoutMs);
    return deadline;
  }

  /** Stops a deadline; stopping one that expired or was stopped already does nothing. */
  stop(deadline: Deadline): void {
    const { previous, next } = deadline;
    if (previous === undefined && this.#oldest !== deadline) return; // not in the queue
    if (previous === undefined) this.#oldest = next;
    else previous.next = next;
    if (next === undefined) this.#newest = previous;
    else next.previous = previous;
    deadline.previous = undefined;
    deadline.next = undefined;
    if (this.#oldest === undefined && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  // An arrow, so it can be handed to setTimeout as it is.
  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (let oldest = this.#oldest; oldest !== undefined; oldest = this.#oldest) {
      if (oldest.dueAt > now) {
        // Wake up again when the oldest still in time falls due. Timers may fire a fraction of
        // a millisecond early by this clock, hence the ceiling and the floor of 1. An `expire`
        // that started a deadline armed a timer for that one: the oldest comes first.
        if (this.#timer !== undefined) clearTimeout(this.#timer);
        this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(oldest.dueAt - now)));
        return;
      }
      this.stop(oldest);
      oldest.expire();
    }
  };
}
