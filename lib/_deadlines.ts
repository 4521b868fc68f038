/** Something with a deadline, as `Deadlines` queues it. */
export interface Deadline {
  /** When it falls due, in `performance.now()` milliseconds; set by `start`. */
  dueAt: number;
  /** Called once, when the deadline passes while it is still in the queue. */
  expire(): void;
}

/** The deadlines of a store's creates in flight; see `createDeadlines`. */
export interface Deadlines {
  /** Starts the deadline, `timeoutMs` from now: `expire` is called if it is not stopped by then. */
  start(deadline: Deadline): void;
  /** Stops a deadline; stopping one that expired or was stopped already does nothing. */
  stop(deadline: Deadline): void;
}

/**
 * Creates the deadlines of a store's creates in flight, all on one timer.
 *
 * Every create gets the same timeout, so deadlines fall due in the order they start: a `Set`,
 * which iterates in insertion order, is the queue, and one timer armed for its oldest entry
 * serves them all. Starting and stopping a deadline cost a clock read and a `Set` operation.
 * A `setTimeout` and `clearTimeout` per create cost little while many are in flight, but with
 * creates one at a time Node makes and drops its timer list for each (see `bench/RESULTS.md`).
 *
 * The timer is cleared whenever the queue empties, so an idle store holds no timer; while a
 * create is in flight the timer keeps the process alive, so even a collaborator that waits on
 * nothing at all gets its `503` at the deadline.
 *
 * @param timeoutMs The timeout of every deadline, in milliseconds.
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  const queue = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  function stop(deadline: Deadline): void {
    if (queue.delete(deadline) && queue.size === 0) {
      clearTimeout(timer);
      timer = undefined;
    }
  }

  function fire(): void {
    timer = undefined;
    const now = performance.now();
    for (const due of queue) {
      if (due.dueAt > now) {
        // Wake up again when the oldest still in time falls due (timers may fire a fraction of
        // a millisecond early by this clock, hence the ceiling). An `expire` that started a
        // deadline armed a timer for that one: the oldest comes first.
        clearTimeout(timer);
        timer = setTimeout(fire, Math.ceil(due.dueAt - now));
        return;
      }
      stop(due);
      due.expire();
    }
  }

  return {
    start(deadline) {
      deadline.dueAt = performance.now() + timeoutMs;
      queue.add(deadline);
      timer ??= setTimeout(fire, timeoutMs);
    },
    stop,
  };
}
