import type { ClientWatch } from './_plain-handler.ts';
import { PlantApiError } from './errors.ts';

/**
 * The life of one create: it ends when the work is done, the deadline passes or the client goes,
 * whichever comes first. `gaveUp` resolves when it ends early.
 *
 * The `AbortSignal` handed to the verifier and the repository is made only when one of them
 * reads it: on Node 20 an `AbortController` with a listener costs more than the plant logic,
 * and most stores (the in-memory one, a static token list) never look at it.
 */
export class RequestLife {
  /** Resolves when the deadline passes or the client goes before the work is done. */
  readonly gaveUp: Promise<void>;
  private giveUp!: () => void;
  private over = false;
  private reason: unknown;
  private controller: AbortController | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly client: ClientWatch;

  /**
   * @param client The client's presence.
   * @param timeoutMs The deadline, from now.
   */
  constructor(client: ClientWatch, timeoutMs: number) {
    this.client = client;
    this.gaveUp = new Promise<void>((resolve) => {
      this.giveUp = resolve;
    });
    this.timer = setTimeout(() => this.end(new PlantApiError('ERR_TIMEOUT')), timeoutMs);
  }

  /** The signal for collaborators; fires when this life ends early. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      this.checkClient();
      if (this.over) this.controller.abort(this.reason);
      else this.unsubscribe = this.client.onAbort(() => this.end(this.client.reason));
    }
    return this.controller.signal;
  }

  /** Whether the life ended early (a deadline or a client that left). */
  get ended(): boolean {
    this.checkClient();
    return this.over;
  }

  /** Throws the reason when the life ended early, so late work stops. */
  throwIfEnded(): void {
    if (this.ended) throw this.reason;
  }

  /** Releases the timer and the client listener once the work is done. */
  dispose(): void {
    clearTimeout(this.timer);
    this.unsubscribe?.();
  }

  private checkClient(): void {
    // Without a signal nobody subscribed to the client: notice its leaving when asked.
    if (!this.over && this.client.aborted) this.end(this.client.reason);
  }

  private end(reason: unknown): void {
    if (this.over) return;
    this.over = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.giveUp();
  }
}
