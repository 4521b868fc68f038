import { ON_WORKERS } from './on-workers.ts';

/**
 * One create's place in its store's deadlines: the create itself is the queue's entry, so that
 * starting a deadline allocates nothing.
 */
export abstract class Deadline {
  /** The entries started just before and just after this one, while it is queued. */
  older: Deadline | undefined = undefined;
  newer: Deadline | undefined = undefined;
  /** When it falls due, by `performance.now()`; `0` until a tick has stamped it. */
  dueAt = 0;
  /** Its own timer, where timers belong to a request (Workers). */
  timer: ReturnType<typeof setTimeout> | undefined = undefined;

  /** Called once, when the deadline passes before it was stopped. */
  abstract expire(): void;
}

/** A store's deadlines, all of one length. */
export interface Deadlines {
  start(deadline: Deadline): void;
  /** Stopping one that passed or was stopped already does nothing. */
  stop(deadline: Deadline): void;
  /** A create waits on a collaborator's promise: the process is kept up until `release`. */
  hold(): void;
  release(): void;
}

/** The share of the timeout by which a deadline may pass late: never early. */
const TICKS_PER_TIMEOUT = 20;

/**
 * The deadlines of one store: every create has `timeoutMs`, so they fall due in the order they
 * started and one queue serves them all (docs/DECISIONS.md). A create reads no clock: a timer
 * that ticks while creates are in flight stamps those started since its last tick, so a deadline
 * passes up to a tick late, never early. The timer keeps the process up only while a create waits
 * on a collaborator's promise: a create waiting on a request's body has its socket for that.
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  // On Workers a timer belongs to its request: a shared one would expire another request's create.
  return ON_WORKERS ? timerPerRequest(timeoutMs) : new DeadlineQueue(timeoutMs);
}

class DeadlineQueue implements Deadlines {
  #oldest: Deadline | undefined = undefined;
  #newest: Deadline | undefined = undefined;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #holds = 0;
  readonly #timeoutMs: number;
  readonly #tickMs: number;
  readonly #tick = () => this.#fire();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.ceil(timeoutMs / TICKS_PER_TIMEOUT);
  }

  start(deadline: Deadline): void {
    deadline.dueAt = 0;
    deadline.older = this.#newest;
    if (this.#newest === undefined) this.#oldest = deadline;
    else this.#newest.newer = deadline;
    this.#newest = deadline;
    // A timer already set, even for an emptied queue, ticks for this one too.
    if (this.#timer === undefined) this.#arm(this.#tickMs);
  }

  stop(deadline: Deadline): void {
    // Not queued: only the oldest entry has no older one.
    if (deadline !== this.#oldest && deadline.older === undefined) return;
    const { older, newer } = deadline;
    if (older === undefined) this.#oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.#newest = older;
    else newer.older = older;
    deadline.older = deadline.newer = undefined;
  }

  hold(): void {
    if (this.#holds++ === 0) this.#timer?.ref();
  }

  release(): void {
    if (--this.#holds === 0) this.#timer?.unref();
  }

  #arm(delay: number): void {
    const timer = setTimeout(this.#tick, delay);
    if (this.#holds === 0) timer.unref();
    this.#timer = timer;
  }

  #fire(): void {
    const now = performance.now();
    // Started since the last tick: they started before now, so now + timeout is never early.
    for (let fresh = this.#newest; fresh !== undefined && fresh.dueAt === 0; fresh = fresh.older) {
      fresh.dueAt = now + this.#timeoutMs;
    }
    // The spent timer stays set meanwhile: a deadline an `expire` starts waits for the next tick.
    let due = this.#oldest;
    while (due !== undefined && due.dueAt !== 0 && due.dueAt <= now) {
      this.stop(due);
      due.expire();
      due = this.#oldest;
    }
    this.#timer = undefined;
    // A timer may fire early by this clock, hence the ceiling.
    if (due !== undefined) {
      this.#arm(
        due.dueAt === 0 ? this.#tickMs : Math.min(this.#tickMs, Math.ceil(due.dueAt - now)),
      );
    }
  }
}

function timerPerRequest(timeoutMs: number): Deadlines {
  return {
    start(deadline) {
      deadline.timer = setTimeout(() => deadline.expire(), timeoutMs);
    },
    stop(deadline) {
      clearTimeout(deadline.timer);
    },
    // The runtime keeps a request's timers until they fire.
    hold() {},
    release() {},
  };
}
