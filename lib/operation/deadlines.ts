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

/** A started deadline, to stop. */
export interface Deadline {
  /** Stops the deadline; stopping one that passed or was stopped already does nothing. */
  stop(): void;
}

/** Starts deadlines that all have the same timeout; see `createDeadlines`. */
export type StartDeadline = (subject: Expiring) => Deadline;

// Workers settle a promise only inside the request that made it, and a timer belongs to its
// request: a timer shared by creates would expire one create from another's request. Workers
// are told apart by their user agent, as jose does (panva/jose#355).
const TIMER_PER_REQUEST =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
  'Cloudflare-Workers';

/**
 * Creates a store's deadlines, all on one timer: `start(subject)` calls `subject.expire()`
 * `timeoutMs` from now unless the returned deadline is stopped first.
 *
 * Every create gets the same timeout, so deadlines fall due in the order they start: a queue
 * linked through its entries, with one timer armed for its oldest entry, serves them all, and
 * starting or stopping one is a few pointer writes rather than a timer of its own.
 *
 * Most creates end within the event-loop turn that read them, so an emptied queue keeps its
 * timer and only unrefs it: an idle store does not hold the process open, and while a create is
 * in flight the timer does, so even a collaborator that waits on nothing gets its `503`. On
 * Cloudflare Workers each deadline has a timer of its own.
 *
 * @param timeoutMs The timeout of every deadline, in milliseconds.
 * @returns The function that starts a deadline.
 * @example
 * ```ts
 * const start = createDeadlines(10_000);
 * const deadline = start({ expire: () => console.log('too late') });
 * deadline.stop();
 * ```
 */
export function createDeadlines(timeoutMs: number): StartDeadline {
  if (TIMER_PER_REQUEST) {
    return (subject) => {
      const timer = setTimeout(() => subject.expire(), timeoutMs);
      return { stop: () => clearTimeout(timer) };
    };
  }
  let oldest: Entry | undefined;
  let newest: Entry | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  class Entry implements Deadline {
    older: Entry | undefined;
    newer: Entry | undefined;
    readonly dueAt: number;
    readonly subject: Expiring;

    constructor(subject: Expiring, dueAt: number) {
      this.subject = subject;
      this.dueAt = dueAt;
    }

    stop(): void {
      // Only the oldest entry has no older one: any other entry without one is not queued.
      if (this !== oldest && this.older === undefined) return;
      unlink(this);
      if (oldest === undefined) timer?.unref();
    }
  }

  function unlink(entry: Entry): void {
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
        // Timers may fire a little early by this clock, hence the ceiling. An `expire` that
        // started a deadline found the spent timer still set and armed none: this one serves it.
        timer = setTimeout(fire, Math.ceil(due.dueAt - now));
        return;
      }
      unlink(due);
      due.subject.expire();
    }
    timer = undefined;
  }

  return function start(subject) {
    const entry = new Entry(subject, performance.now() + timeoutMs);
    entry.older = newest;
    if (newest === undefined) oldest = entry;
    else newest.newer = entry;
    newest = entry;
    if (timer === undefined) timer = setTimeout(fire, timeoutMs);
    else if (oldest === entry) timer.ref();
    return entry;
  };
}
