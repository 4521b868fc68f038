// `diagnostics_channel`, reached at run time so the core loads no `node:*` module; where the
// runtime has none, every channel is silent.

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

interface TracingChannel {
  readonly start: Channel;
  readonly end: Channel;
  readonly asyncStart: Channel;
  readonly asyncEnd: Channel;
  readonly error: Channel;
}

interface DiagnosticsChannelModule {
  tracingChannel(name: string): TracingChannel;
}

/**
 * The name of the tracing channel of each create.
 *
 * Its events (`tracing:plant-store:create:start`, `:end`, `:asyncStart`, `:asyncEnd`, `:error`)
 * carry one `CreateChannelMessage` per create. Silent where the runtime has no
 * `diagnostics_channel`.
 *
 * @example
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * import { CREATE_CHANNEL, type CreateChannelMessage } from 'plant-store';
 *
 * subscribe(`tracing:${CREATE_CHANNEL}:asyncEnd`, (message) => {
 *   const { requestId, status } = message as CreateChannelMessage;
 *   console.log(requestId, status);
 * });
 * ```
 */
export const CREATE_CHANNEL = 'plant-store:create';
/**
 * The name of the tracing channel of each call of the store's `TokenVerifier`.
 *
 * Its events carry one `CollaboratorChannelMessage` per call, with the verdict set at
 * `asyncStart`.
 *
 * @example
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * import { VERIFIER_CHANNEL, type CollaboratorChannelMessage } from 'plant-store';
 *
 * subscribe(`tracing:${VERIFIER_CHANNEL}:asyncStart`, (message) => {
 *   const { valid, reason } = message as CollaboratorChannelMessage;
 *   if (!valid) console.log('token refused:', reason);
 * });
 * ```
 */
export const VERIFIER_CHANNEL = 'plant-store:create:verifier';
/**
 * The name of the tracing channel of each call of the store's `PlantRepository`.
 *
 * Its events carry one `CollaboratorChannelMessage` per call, with the `outcome` set at
 * `asyncStart`.
 *
 * @example
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel';
 * import { REPOSITORY_CHANNEL, type CollaboratorChannelMessage } from 'plant-store';
 *
 * subscribe(`tracing:${REPOSITORY_CHANNEL}:error`, (message) => {
 *   console.error((message as CollaboratorChannelMessage).error);
 * });
 * ```
 */
export const REPOSITORY_CHANNEL = 'plant-store:create:repository';

const diagnostics = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:diagnostics_channel') as DiagnosticsChannelModule | undefined;

const SILENT: Channel = { hasSubscribers: false, publish() {} };

/**
 * One tracing channel, held for the process's life: Node forgets a channel nobody holds. `active`
 * asks each of the five, since not every runtime's `TracingChannel` has `hasSubscribers`.
 */
export class Tracer {
  readonly start: Channel;
  readonly end: Channel;
  readonly asyncStart: Channel;
  readonly asyncEnd: Channel;
  readonly error: Channel;

  constructor(name: string) {
    const channel = diagnostics?.tracingChannel(name);
    this.start = channel?.start ?? SILENT;
    this.end = channel?.end ?? SILENT;
    this.asyncStart = channel?.asyncStart ?? SILENT;
    this.asyncEnd = channel?.asyncEnd ?? SILENT;
    this.error = channel?.error ?? SILENT;
  }

  get active(): boolean {
    return (
      this.start.hasSubscribers ||
      this.end.hasSubscribers ||
      this.asyncStart.hasSubscribers ||
      this.asyncEnd.hasSubscribers ||
      this.error.hasSubscribers
    );
  }
}

export const createTracer = new Tracer(CREATE_CHANNEL);
export const verifierTracer = new Tracer(VERIFIER_CHANNEL);
export const repositoryTracer = new Tracer(REPOSITORY_CHANNEL);

/** Handlers of a tracing channel's events, as `TracingChannel.subscribe` takes them. */
export interface TracingHandlers<Message> {
  start?(message: Message): void;
  end?(message: Message): void;
  asyncStart?(message: Message): void;
  asyncEnd?(message: Message): void;
  error?(message: Message): void;
}

/** Subscribes to a tracing channel's events; returns what unsubscribes them. */
export function subscribeTracing<Message>(
  name: string,
  handlers: TracingHandlers<Message>,
): () => void {
  const channel = diagnostics?.tracingChannel(name) as
    | (TracingChannel & {
        subscribe(handlers: TracingHandlers<Message>): void;
        unsubscribe(handlers: TracingHandlers<Message>): void;
      })
    | undefined;
  if (channel === undefined) return () => {};
  channel.subscribe(handlers);
  return () => channel.unsubscribe(handlers);
}
