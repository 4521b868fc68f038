/** What a deadline calls, once, when it passes before it was stopped. */
export interface Expiring {
  expire(): void;
}

/** A started deadline; stopping one that passed or was stopped already does nothing. */
export interface Deadline {
  stop(): void;
}

export type StartDeadline = (subject: Expiring) => Deadline;

// On Workers a timer belongs to its request, so a shared one would expire a create from another
// request. Told by the user agent, as jose does (panva/jose#355).
const TIMER_PER_REQUEST =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
  'Cloudflare-Workers';

/**
 * `start(subject)` calls `subject.expire()` `timeoutMs` from now unless stopped first. All share
 * one timer (see docs/DECISIONS.md); an emptied queue only unrefs it, so an idle store holds no
 * process open while a create in flight does.
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
      // Not queued: only the oldest entry has no older one.
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
        // A timer may fire early by this clock, hence the ceiling. An `expire` that started a
        // deadline found the spent timer still set and armed none: this one serves it.
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
