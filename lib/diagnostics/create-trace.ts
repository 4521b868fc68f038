/**
 * One create as the diagnostics channels tell it: made only when someone listens, so that a
 * store nobody watches builds no message at all.
 *
 * @module
 */

import type { PlainRequest, Reply } from '../operation/plain-request.ts';
import { usableRequestId } from '../operation/request-id.ts';
import type { TokenRejectionReason } from '../types.ts';
import { createTracer, repositoryTracer, type Tracer, verifierTracer } from './channels.ts';
import type {
  CollaboratorChannelMessage,
  CreateChannelMessage,
  CreateOutcome,
} from './messages.ts';

/**
 * Publishes one create's events (see `CreateChannelMessage` and `CollaboratorChannelMessage`
 * for their order). The operation calls it at each step, only when `begin` made one.
 */
export class CreateTrace {
  readonly #message: CreateChannelMessage;
  /** The collaborator call in flight, if any, and its channel. */
  #call: CollaboratorChannelMessage | undefined;
  #callTracer: Tracer = verifierTracer;
  #callReturned = false;

  /**
   * Starts the trace of a create, when anyone listens to any of the store's channels.
   *
   * @param input The request.
   * @returns The trace, or `undefined` when nobody listens.
   */
  static begin(input: PlainRequest): CreateTrace | undefined {
    if (!createTracer.active && !verifierTracer.active && !repositoryTracer.active) {
      return undefined;
    }
    return new CreateTrace(input);
  }

  private constructor(input: PlainRequest) {
    this.#message = {
      requestId: usableRequestId(input.requestId()),
      method: input.method,
      path: input.path,
      traceparent: input.header('traceparent') ?? undefined,
      tracestate: input.header('tracestate') ?? undefined,
    };
    createTracer.start.publish(this.#message);
  }

  /** The verifier is called. */
  verifying(): void {
    this.#calling(verifierTracer);
  }

  /** The repository is called. */
  storing(): void {
    this.#calling(repositoryTracer);
  }

  /** The collaborator's call returned: its answer, or a promise of it. */
  returned(): void {
    const call = this.#call;
    if (call !== undefined && !this.#callReturned) {
      this.#callReturned = true;
      this.#callTracer.end.publish(call);
    }
  }

  /** The verifier's verdict is in hand. */
  verified(valid: boolean, reason: TokenRejectionReason | undefined): void {
    const call = this.#call;
    if (call === undefined) return;
    call.valid = valid;
    if (!valid) call.reason = this.#message.reason = reason;
    this.#settle(call);
  }

  /** The repository's outcome is in hand. */
  stored(outcome: 'created' | 'replayed' | 'conflict'): void {
    const call = this.#call;
    if (call === undefined) return;
    call.outcome = outcome;
    this.#settle(call);
  }

  /**
   * The create failed (a fault) or ends early (the deadline, a client that left): a
   * collaborator still waited on fails with the same error.
   */
  failed(error: unknown): void {
    const call = this.#call;
    if (call !== undefined) {
      call.error = error;
      this.#callTracer.error.publish(call);
      this.#settle(call);
    }
    this.#message.error = error;
    createTracer.error.publish(this.#message);
  }

  /**
   * The create's reply is ready: `send` hands it on between `asyncStart` and `asyncEnd`.
   *
   * @param reply The reply.
   * @param outcome What the create came to.
   * @param send Hands the reply to the front.
   */
  answered(reply: Reply, outcome: CreateOutcome, send: (reply: Reply) => void): void {
    const message = this.#message;
    message.status = reply.status;
    message.outcome = outcome;
    createTracer.asyncStart.publish(message);
    send(reply);
    createTracer.asyncEnd.publish(message);
  }

  /** The store's call of the operation returned. */
  end(): void {
    createTracer.end.publish(this.#message);
  }

  #calling(tracer: Tracer): void {
    const call: CollaboratorChannelMessage = {
      create: this.#message,
      requestId: this.#message.requestId,
    };
    this.#call = call;
    this.#callTracer = tracer;
    this.#callReturned = false;
    tracer.start.publish(call);
  }

  /** The call in flight is over: `end` if it had not returned, then `asyncStart`, `asyncEnd`. */
  #settle(call: CollaboratorChannelMessage): void {
    const tracer = this.#callTracer;
    this.#call = undefined;
    if (!this.#callReturned) tracer.end.publish(call);
    tracer.asyncStart.publish(call);
    tracer.asyncEnd.publish(call);
  }
}
