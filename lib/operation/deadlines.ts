/**
 * The deadlines of a store's creates in flight.
 *
 * @module
 */

/** What a deadline calls when it passes. */
export interface Expiring {
  /** Called once, when the deadline passes before it was stopped. */
  expire(): void;
}

/** A store's deadlines, all with the same timeout; see `createDeadlines`. */
export interface Deadlines {
  /** Calls `subject.expire()` the timeout from now, unless it is stopped first. */
  start(subject: Expiring): void;
  /** Stops the subject's deadline; stopping one that passed or was stopped does nothing. */
  stop(subject: Expiring): void;
}

/**
 * Creates a store's deadlines, all on one timer.
 *
 * Every create gets the same timeout, so deadlines fall due in the order they start: a `Map`,
 * which keeps its entries in that order, holds when each falls due, and one timer armed for
 * its oldest entry serves them all.
 *
 * An emptied map keeps its timer and only unrefs it: an idle store does not hold the process
 * open, and while a create is in flight the timer does, so even a collaborator that waits on
 * nothing gets its `503`.
 *
 * @param timeoutMs The timeout of every deadline, in milliseconds.
 * @returns The deadlines.
 * @example
 * ```ts
 * const deadlines = createDeadlines(10_000);
 * const create = { expire: () => console.log('too late') };
 * deadlines.start(create);
 * deadlines.stop(create);
 * ```
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  const dueAt = new Map<Expiring, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  function fire(): void {
    const now = performance.now();
    for (const [subject, due] of dueAt) {
      if (due > now) {
        // Timers may fire a little early by this clock, hence the ceiling. An `expire` that
        // started a deadline found the spent timer still set and armed none: this one serves it.
        timer = setTimeout(fire, Math.ceil(due - now));
        return;
      }
      dueAt.delete(subject);
      subject.expire();
    }
    timer = undefined;
  }

  return {
    start(subject) {
      dueAt.set(subject, performance.now() + timeoutMs);
      if (timer === undefined) timer = setTimeout(fire, timeoutMs);
      else if (dueAt.size === 1) timer.ref();
    },
    stop(subject) {
      if (dueAt.delete(subject) && dueAt.size === 0) timer?.unref();
    },
  };
}
