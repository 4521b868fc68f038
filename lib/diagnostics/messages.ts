// A message names the request and what came of it, never a token, a body or a principal.

import type { CreateOutcome } from '../operation/plain-request.ts';
import type { TokenRejectionReason } from '../types.ts';

export type { CreateOutcome };

/**
 * The message of the `plant-store:create` tracing channel, one object per create, filled in as
 * it goes: `start`; `end` when the store's call returns; `error` on a fault or an early end
 * (`503`); `asyncStart` when the reply is ready; `asyncEnd`, once per `start`, when it is sent.
 */
export interface CreateChannelMessage {
  readonly requestId: string | undefined;
  readonly method: string;
  /** Without the query; `undefined` for a target that is no path. */
  readonly path: string | undefined;
  /** The matched route's template (`/:tenant/plants`); `undefined` through `handleCreatePlant`. */
  readonly route: string | undefined;
  /** The caller's W3C trace context headers, when sent. */
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
  /** Set at `asyncStart`, as is `outcome`. */
  status?: number;
  outcome?: CreateOutcome;
  /** Why the verifier refused the token, when it said. */
  reason?: TokenRejectionReason | undefined;
  /** The fault, or why the create ended early. */
  error?: unknown;
}

/**
 * The message of the `plant-store:create:verifier` and `…:repository` tracing channels, one per
 * call: `start`; `end` when the call returns; `error` if it failed or the create stopped waiting;
 * then `asyncStart` and `asyncEnd`, once per call.
 */
export interface CollaboratorChannelMessage {
  /** The same object the create's own events carry. */
  readonly create: CreateChannelMessage;
  readonly requestId: string | undefined;
  /** The verifier's verdict (and `reason`) or the repository's `outcome`, set at `asyncStart`. */
  valid?: boolean;
  reason?: TokenRejectionReason | undefined;
  outcome?: 'created' | 'replayed' | 'conflict';
  /** What the call threw or rejected with, or why the create stopped waiting. */
  error?: unknown;
}
