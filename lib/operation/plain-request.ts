// A request and its answer as plain values: what each front (`store/web-request.ts`,
// `node/node-request.ts`) hands the create operation, and what it hands back.

import type { ErrorReply, PlantApiErrorCode } from '../errors.ts';
import type { RequestHead } from '../types.ts';

/** Whether the client went away: the part of an `AbortSignal` the operation uses. */
export interface ClientWatch {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: { handleEvent(): void }): void;
  /** Called when the create is over: a host may share one signal among many requests. */
  removeEventListener(type: 'abort', listener: { handleEvent(): void }): void;
}

/** What the create operation needs of a request; an absent header is `null`. */
export interface PlainRequest {
  readonly method: string;
  readonly authorization: string | null;
  readonly contentType: string | null;
  readonly contentEncoding: string | null;
  /** `null` also when not read: a store without CORS needs none. */
  readonly origin: string | null;
  readonly preflightMethod: string | null;
  /** `-1` when `Content-Length` is absent or not plain digits. */
  readonly declaredLength: number;
  /** False when there is no body at all; a declared length of 0 is the operation's to judge. */
  readonly hasBody: boolean;
  /** Called at most once, only when `hasBody`; stops past `maxBytes`. */
  readonly readBody: (maxBytes: number, sink: BodySink) => void;
  readonly client: ClientWatch;
  readonly requestId: () => string | undefined;
  /** Without the query; `undefined` for a target that is no path. */
  readonly path: string | undefined;
  readonly header: (name: string) => string | null;
  readonly head: () => RequestHead;
  /** What the host has for the request (a framework's request object). */
  readonly host: unknown;
  /** The host's own limit (Fastify's `bodyLimit`), when below the store's. */
  readonly bodyLimit?: number;
  /** The matched route as a template (`/:tenant/plants`), for telemetry. */
  readonly route?: string;
}

/** Why a body was not read whole; a length mismatch comes only from a request built in process. */
export type BodyReadFailure =
  'ERR_BODY_TOO_LARGE' | 'ERR_BODY_REQUIRED' | 'ERR_BODY_LENGTH_MISMATCH';

/** Where a body read ends: the front calls one of these, once. */
export interface BodySink {
  take(bytes: Uint8Array | BodyReadFailure): void;
  fail(error: unknown): void;
}

export interface PlantReply {
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the operation answers and the fronts send. */
export type Reply = PlantReply | ErrorReply;

/**
 * What a create came to: `created`, `replayed` (the same plant was stored already: `200`),
 * `conflict` (`409`), or the code of the error it answered with.
 */
export type CreateOutcome = 'created' | 'replayed' | 'conflict' | PlantApiErrorCode;

/** Hands a reply to its front, with the fault or early end that decided it; never throws. */
export type Answer = (reply: Reply, outcome: CreateOutcome, fault?: unknown) => void;
