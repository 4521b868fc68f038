/** Something with a deadline, as `Deadlines` queues it. */
export interface Deadline {
  /** When it falls due, in `performance.now()` milliseconds; set by `start`. */
  dueAt: number;
  /** The queue's link to the entry started before it; kept by `Deadlines`. */
  older: Deadline | undefined;
  /** The queue's link to the entry started after it; kept by `Deadlines`. */
  newer: Deadline | undefined;
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
 * Every create gets the same timeout, so deadlines fall due in the order they start: a list
 * linked through the entries themselves is the queue, and one timer armed for its oldest entry
 * serves them all. Starting and stopping a deadline cost a clock read and a few pointer writes,
 * where a `Set` would hash each new entry (about 3x the cost, see `bench/RESULTS.md`).
 *
 * Under load the queue empties often: over HTTP most creates end within the event-loop turn that
 * read them. So an emptied queue keeps its timer and only unrefs it; the next create refs it
 * again, which costs far less than a `setTimeout` and a `clearTimeout` per create. An idle
 * store's timer runs out without holding the process open; while a create is in flight the
 * timer keeps the process alive, so even a collaborator that waits on nothing at all gets its
 * `503` at the deadline.
 *
 * @param timeoutMs The timeout of every deadline, in milliseconds.
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  let oldest: Deadline | undefined;
  let newest: Deadline | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function unlink(entry: Deadline): void {
    const { older, newer } = entry;
    if (older === undefined) oldest = newer;
    else older.newer = newer;
    if (newer === undefined) newest = older;
    else newer.older = older;
    entry.older = entry.newer = undefined;
  }

  function fire(): void {
    const now = performance.now();
    for (let due = oldest; due !== undefined; due = oldest) {
      if (due.dueAt > now) {
        // Wake up again when the oldest still in time falls due (timers may fire a fraction of
        // a millisecond early by this clock, hence the ceiling). An `expire` that started a
        // deadline found the spent timer still set, so it armed none: this one serves it.
        timer = setTimeout(fire, Math.ceil(due.dueAt - now));
        return;
      }
      unlink(due);
      due.expire();
    }
    timer = undefined;
  }

  return {
    start(entry) {
      entry.dueAt = performance.now() + timeoutMs;
      entry.older = newest;
      if (newest === undefined) oldest = entry;
      else newest.newer = entry;
      newest = entry;
      if (timer === undefined) timer = setTimeout(fire, timeoutMs);
      else if (oldest === entry) timer.ref();
    },
    stop(entry) {
      // Only the oldest entry has no older one: any other entry without one is not queued.
      if (entry !== oldest && entry.older === undefined) return;
      unlink(entry);
      // An empty queue lets the timer run out without holding the process open.
      if (oldest === undefined) timer?.unref();
    },
  };
}
