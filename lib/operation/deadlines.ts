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

/** A store's deadlines: see `createDeadlines`. */
export interface Deadlines {
  /** Starts a deadline for `subject`; the number it returns stops it. */
  start(subject: Expiring): number;
  /** Stops a deadline; stopping one that passed or was stopped already does nothing. */
  stop(deadline: number): void;
}

/**
 * Creates a store's deadlines, all on one timer: `start(subject)` calls `subject.expire()`
 * `timeoutMs` from now unless `stop` is called first with the number it returned.
 *
 * Every create gets the same timeout, so deadlines fall due in the order they start: a queue in
 * two arrays (when each falls due, and whom it calls), with one timer armed for its oldest
 * entry, serves them all, and a deadline is its place in that queue, so none is an object.
 *
 * Most creates end within the event-loop turn that read them, so an emptied queue keeps its
 * timer and only unrefs it: an idle store does not hold the process open, and while a create is
 * in flight the timer does, so even a collaborator that waits on nothing gets its `503`.
 *
 * @param timeoutMs The timeout of every deadline, in milliseconds.
 * @returns The store's deadlines.
 * @example
 * ```ts
 * const deadlines = createDeadlines(10_000);
 * const deadline = deadlines.start({ expire: () => console.log('too late') });
 * deadlines.stop(deadline);
 * ```
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  const dueAt: number[] = [];
  const subjects: (Expiring | undefined)[] = [];
  /** The number of the deadline at index 0 of the arrays. */
  let first = 0;
  /** The index of the oldest deadline that may still be live. */
  let head = 0;
  let live = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function fire(): void {
    const now = performance.now();
    while (head < subjects.length) {
      const subject = subjects[head];
      if (subject === undefined) {
        head++;
        continue;
      }
      const due = dueAt[head] as number;
      if (due > now) {
        // Timers may fire a little early by this clock, hence the ceiling. An `expire` that
        // started a deadline found the spent timer still set and armed none: this one serves it.
        timer = setTimeout(fire, Math.ceil(due - now));
        return compact();
      }
      subjects[head++] = undefined;
      live--;
      subject.expire();
    }
    timer = undefined;
    compact();
  }

  /** Drops the spent front of the queue once it is most of it. */
  function compact(): void {
    if (head > 1024 && head * 2 > subjects.length) {
      dueAt.splice(0, head);
      subjects.splice(0, head);
      first += head;
      head = 0;
    }
  }

  return {
    start(subject) {
      dueAt.push(performance.now() + timeoutMs);
      const index = subjects.push(subject) - 1;
      if (live++ === 0) {
        if (timer === undefined) timer = setTimeout(fire, timeoutMs);
        else timer.ref();
      }
      return first + index;
    },
    stop(deadline) {
      const index = deadline - first;
      if (index < head || subjects[index] === undefined) return;
      subjects[index] = undefined;
      if (--live === 0) {
        // Nothing in flight: the spent queue is dropped and the timer no longer holds the process.
        first += subjects.length;
        head = 0;
        dueAt.length = subjects.length = 0;
        timer?.unref();
      }
    },
  };
}
