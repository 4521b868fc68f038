// The channels' events, published from outside the operation: the create's around its call and
// its answer, each collaborator's around its call.

import type { AnswerListener, Collaborators } from '../operation/collaborator-answers.ts';
import type { CollaboratorContext } from '../operation/collaborator-context.ts';
import type { Operation } from '../operation/create-plant.ts';
import type { CreateOutcome, PlainRequest, Reply } from '../operation/plain-request.ts';
import { usableRequestId } from '../operation/usable-request-id.ts';
import type { NewPlant } from '../types.ts';
import {
  createTracer,
  isActive,
  repositoryTracer,
  type TracingChannel,
  verifierTracer,
} from './channels.ts';
import type { CollaboratorChannelMessage, CreateChannelMessage } from './messages.ts';

/** The operation, traced whenever anyone listens; a create nobody listens to builds no message. */
export function traced(operation: Operation, collaborators: Collaborators): Operation {
  return (input, answer) => {
    if (!isActive(createTracer) && !isActive(verifierTracer) && !isActive(repositoryTracer)) {
      return operation(input, answer);
    }
    const trace = new CreateTrace(input, collaborators);
    operation(
      input,
      (reply, outcome, fault) => trace.answered(reply, outcome, fault, answer),
      trace,
    );
    createTracer.end.publish(trace.message);
  };
}

/** One create's messages; it stands between the operation and its collaborators. */
class CreateTrace implements Collaborators {
  readonly message: CreateChannelMessage;
  /** The collaborator call in flight, if any, and its channel. */
  #call: CollaboratorChannelMessage | undefined;
  #callTracer: TracingChannel = verifierTracer;
  #callReturned = false;
  readonly #collaborators: Collaborators;

  constructor(input: PlainRequest, collaborators: Collaborators) {
    this.#collaborators = collaborators;
    this.message = {
      requestId: usableRequestId(input.requestId()),
      method: input.method,
      path: input.path,
      route: input.route,
      traceparent: input.header('traceparent') ?? undefined,
      tracestate: input.header('tracestate') ?? undefined,
    };
    createTracer.start.publish(this.message);
  }

  verify(token: string, context: CollaboratorContext, listener: AnswerListener): void {
    const call = this.#calling(verifierTracer);
    this.#collaborators.verify(token, context, this.#listening(call, listener));
    this.#returned(call);
  }

  store(plant: NewPlant, context: CollaboratorContext, listener: AnswerListener): void {
    const call = this.#calling(repositoryTracer);
    this.#collaborators.store(plant, context, this.#listening(call, listener));
    this.#returned(call);
  }

  /** Notes on `call`'s message what its answer came to, then hands the answer on. */
  #listening(call: CollaboratorChannelMessage, listener: AnswerListener): AnswerListener {
    return {
      verified: (valid, principal, reason) => {
        if (call === this.#call) {
          call.valid = valid;
          if (!valid) call.reason = this.message.reason = reason;
          this.#settle(call);
        }
        listener.verified(valid, principal, reason);
      },
      stored: (outcome) => {
        if (call === this.#call) {
          call.outcome = outcome;
          this.#settle(call);
        }
        listener.stored(outcome);
      },
      fail: (error) => {
        this.#failed(call, error);
        listener.fail(error);
      },
    };
  }

  /**
   * The reply is ready: a fault or an early end fails any call in flight and the create, then
   * `send` runs between `asyncStart` and `asyncEnd`.
   */
  answered(
    reply: Reply,
    outcome: CreateOutcome,
    fault: unknown,
    send: (reply: Reply, outcome: CreateOutcome, fault?: unknown) => void,
  ): void {
    const message = this.message;
    if (fault !== undefined) {
      if (this.#call !== undefined) this.#failed(this.#call, fault);
      message.error = fault;
      createTracer.error.publish(message);
    }
    message.status = reply.status;
    message.outcome = outcome;
    createTracer.asyncStart.publish(message);
    send(reply, outcome, fault);
    createTracer.asyncEnd.publish(message);
  }

  #calling(tracer: TracingChannel): CollaboratorChannelMessage {
    const call: CollaboratorChannelMessage = {
      create: this.message,
      requestId: this.message.requestId,
    };
    this.#call = call;
    this.#callTracer = tracer;
    this.#callReturned = false;
    tracer.start.publish(call);
    return call;
  }

  /** The collaborator's call returned: its answer, or a promise of it. */
  #returned(call: CollaboratorChannelMessage): void {
    if (call === this.#call && !this.#callReturned) {
      this.#callReturned = true;
      this.#callTracer.end.publish(call);
    }
  }

  /** The call failed, or the create ended while it waited; a call already over hears nothing. */
  #failed(call: CollaboratorChannelMessage, error: unknown): void {
    if (call === this.#call) {
      call.error = error;
      this.#callTracer.error.publish(call);
      this.#settle(call);
    }
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
