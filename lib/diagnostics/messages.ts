// A message names the request and what came of it, never a token, a body or a principal.

import type { CreateOutcome } from '../operation/plain-request.ts';
import type { TokenRejectionReason } from '../types.ts';

export type { CreateOutcome };

/**
 * The message of the `plant-store:create` tracing channel: one object per create, filled in as
 * it goes.
 *
 * Its events: `start`; `end` when the store's call returns; `error` on a fault or an early end
 * (`503`); `asyncStart` when the reply is ready; `asyncEnd`, once per `start`, when it is sent.
 */
export interface CreateChannelMessage {
  /** The request's `X-Request-Id`, when it has one. */
  readonly requestId: string | undefined;
  /** The HTTP method. */
  readonly method: string;
  /** The request's path without the query; `undefined` for a target that is no path. */
  readonly path: string | undefined;
  /** The matched route's template (`/:tenant/plants`); `undefined` through `handleCreatePlant`. */
  readonly route: string | undefined;
  /** The caller's W3C `traceparent` header, when sent. */
  readonly traceparent: string | undefined;
  /** The caller's W3C `tracestate` header, when sent. */
  readonly tracestate: string | undefined;
  /** The reply's status; set at `asyncStart`. */
  status?: number;
  /** What the create came to; set at `asyncStart`. */
  outcome?: CreateOutcome;
  /** The reason the verifier refused the token, when it said (`401` only). */
  reason?: TokenRejectionReason | undefined;
  /** The fault, or why the create ended early; set at `error`. */
  error?: unknown;
}

/**
 * The message of the `plant-store:create:verifier` and `…:repository` tracing channels: one
 * object per call.
 *
 * Its events: `start`; `end` when the call returns; `error` if it failed or the create stopped
 * waiting; then `asyncStart` and `asyncEnd`, once per call.
 */
export interface CollaboratorChannelMessage {
  /** The create's own message: the same object its `plant-store:create` events carry. */
  readonly create: CreateChannelMessage;
  /** The request's `X-Request-Id`, when it has one. */
  readonly requestId: string | undefined;
  /** The verifier's verdict, whether it accepted the token; set at `asyncStart`. */
  valid?: boolean;
  /** The reason the verifier refused the token, when it said; set at `asyncStart`. */
  reason?: TokenRejectionReason | undefined;
  /** The outcome of the repository's answer; set at `asyncStart`. */
  outcome?: 'created' | 'replayed' | 'conflict';
  /** The error the call threw or rejected with, or why the create stopped waiting. */
  error?: unknown;
}
