// `diagnostics_channel`, reached at run time so the core loads no `node:*` module; where the
// runtime has none, every channel is silent.

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

export interface TracingChannel {
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
const SILENT_TRACING: TracingChannel = {
  start: SILENT,
  end: SILENT,
  asyncStart: SILENT,
  asyncEnd: SILENT,
  error: SILENT,
};

// Held for the process's life: Node forgets a channel nobody holds.
export const createTracer = diagnostics?.tracingChannel(CREATE_CHANNEL) ?? SILENT_TRACING;
export const verifierTracer = diagnostics?.tracingChannel(VERIFIER_CHANNEL) ?? SILENT_TRACING;
export const repositoryTracer = diagnostics?.tracingChannel(REPOSITORY_CHANNEL) ?? SILENT_TRACING;

/** Whether anyone listens, asked of each event: not every runtime's channel says it of itself. */
export function isActive(tracer: TracingChannel): boolean {
  return (
    tracer.start.hasSubscribers ||
    tracer.end.hasSubscribers ||
    tracer.asyncStart.hasSubscribers ||
    tracer.asyncEnd.hasSubscribers ||
    tracer.error.hasSubscribers
  );
}

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
