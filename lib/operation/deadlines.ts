import { ON_WORKERS } from './on-workers.ts';

/**
 * One create's place in its store's deadline queue: the create is its own entry, so that starting
 * a deadline allocates nothing.
 */
export abstract class Deadline {
  /** The entries started just before and just after it, while it is queued. */
  older: Deadline | undefined;
  newer: Deadline | undefined;
  /** When it falls due, by `performance.now()`; `0` until a tick has stamped it. */
  dueAt = 0;
  /** Its own timer, on Workers. */
  timer: ReturnType<typeof setTimeout> | undefined;

  /** Called once, when the deadline passes before it was stopped. */
  abstract expire(): void;
}

/** How late a deadline may pass (a twentieth of the timeout, 50 ms at most); never early. */
const TICKS_PER_TIMEOUT = 20;
const MAX_TICK_MS = 50;

/**
 * The deadlines of one store's creates. Every create has `timeoutMs`, so they fall due in the
 * order they started and one queue serves them all (docs/DECISIONS.md). A create reads no clock,
 * and sets a timer only when none is ticking: a timer that ticks while creates are in flight stamps
 * those started since its last tick, so a deadline passes up to a tick late, never early, and a
 * store whose creates are all answered lets the process go within a tick. On Workers each create
 * has a timer of its own.
 */
export class Deadlines {
  #oldest: Deadline | undefined = undefined;
  #newest: Deadline | undefined = undefined;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  readonly #timeoutMs: number;
  readonly #tickMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.min(MAX_TICK_MS, Math.ceil(timeoutMs / TICKS_PER_TIMEOUT));
  }

  start(deadline: Deadline): void {
    // On Workers a timer belongs to its request: a shared one would expire another's create.
    if (ON_WORKERS) {
      deadline.timer = setTimeout(() => deadline.expire(), this.#timeoutMs);
      return;
    }
    deadline.older = this.#newest;
    if (this.#newest === undefined) this.#oldest = deadline;
    else this.#newest.newer = deadline;
    this.#newest = deadline;
    // A timer already set, even for an emptied queue, ticks for this one too.
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#tick(), this.#tickMs);
  }

  /** Stopping one that passed or was stopped already does nothing. */
  stop(deadline: Deadline): void {
    if (ON_WORKERS) return clearTimeout(deadline.timer);
    // Not queued: only the oldest entry has no older one.
    if (deadline !== this.#oldest && deadline.older === undefined) return;
    const { older, newer } = deadline;
    if (older === undefined) this.#oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.#newest = older;
    else newer.older = older;
    deadline.older = deadline.newer = undefined;
  }

  #tick(): void {
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
    // Unstamped, the next tick stamps it; a timer may fire early by this clock, hence the ceiling.
    if (due !== undefined) {
      const wait = due.dueAt === 0 ? this.#tickMs : Math.ceil(due.dueAt - now);
      this.#timer = setTimeout(() => this.#tick(), Math.min(wait, this.#tickMs));
    }
  }
}
