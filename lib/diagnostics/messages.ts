/**
 * What the store's diagnostics channels carry: the public types of their messages. A message
 * names the request (its id, method and path, the caller's trace context) and what came of it;
 * it never holds a token, a body or a principal.
 *
 * @module
 */

import type { CreateOutcome } from '../operation/plain-request.ts';
import type { TokenRejectionReason } from '../types.ts';

export type { CreateOutcome };

/**
 * The message of every event of the `plant-store:create` tracing channel, one object per
 * create, filled in as it goes.
 *
 * The events, as `diagnostics_channel` names them (`tracing:plant-store:create:<event>`):
 * `start` when the create begins; `error` when a collaborator or the body read threw (`500`,
 * or `507` for a full store) or the create ends early (`503`: the deadline, or a client that
 * left), with `error` set; `asyncStart` when its reply is ready, with
 * `status` and `outcome` set (and `reason` for a refused token), and `asyncEnd` once the reply
 * is handed on. `asyncEnd` comes exactly once per `start`: the create is over then. `end` comes
 * when the store's call returns, which is before `asyncStart` when the create waits on
 * something, as with Node's `traceCallback`.
 */
export interface CreateChannelMessage {
  /** The request's `X-Request-Id`, when it has one. */
  readonly requestId: string | undefined;
  /** The HTTP method. */
  readonly method: string;
  /** The request's path, without the query string (`undefined` for a target that is no path). */
  readonly path: string | undefined;
  /** The caller's W3C `traceparent` header, when it sent one. */
  readonly traceparent: string | undefined;
  /** The caller's W3C `tracestate` header, when it sent one. */
  readonly tracestate: string | undefined;
  /** The status of the reply; set at `asyncStart`. */
  status?: number;
  /** What the create came to; set at `asyncStart`. */
  outcome?: CreateOutcome;
  /** Why the verifier refused the token, when it said (`401` only). */
  reason?: TokenRejectionReason | undefined;
  /** The fault, or the reason a create ended early; set at `error`. */
  error?: unknown;
}

/**
 * The message of every event of the `plant-store:create:verifier` and
 * `plant-store:create:repository` tracing channels, one object per call.
 *
 * The events: `start` before the call; `end` when the call returned (an answer or a promise of
 * one); `error` when it threw or rejected, or when the create ended while it waited (then
 * `error` is the deadline's or the client's reason and its late answer is dropped); then
 * `asyncStart` and `asyncEnd` once its answer is in hand (or it failed), exactly once per call.
 */
export interface CollaboratorChannelMessage {
  /** The create this call is part of: the same object its `plant-store:create` events carry. */
  readonly create: CreateChannelMessage;
  /** The request's `X-Request-Id`, when it has one. */
  readonly requestId: string | undefined;
  /** The verifier's verdict: whether it accepted the token; set at `asyncStart`. */
  valid?: boolean;
  /** Why the verifier refused the token, when it said; set at `asyncStart`. */
  reason?: TokenRejectionReason | undefined;
  /** What the repository's answer came to; set at `asyncStart`. */
  outcome?: 'created' | 'replayed' | 'conflict';
  /** What the call threw or rejected with, or why the create stopped waiting; set at `error`. */
  error?: unknown;
}
