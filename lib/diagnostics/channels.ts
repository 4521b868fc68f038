/**
 * The diagnostics channels a store publishes on: Node's `diagnostics_channel`, reached at run
 * time so that the core loads no `node:*` module. Node, Deno and Bun have it; elsewhere (a
 * browser, a worker without Node compatibility) every channel is a silent stand-in.
 *
 * @module
 */

/** The part of a `diagnostics_channel` channel used here. */
interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

/** The part of a `diagnostics_channel` `TracingChannel` used here. */
interface TracingChannel {
  readonly start: Channel;
  readonly end: Channel;
  readonly asyncStart: Channel;
  readonly asyncEnd: Channel;
  readonly error: Channel;
}

/** The part of the `node:diagnostics_channel` module used here. */
interface DiagnosticsChannelModule {
  tracingChannel(name: string): TracingChannel;
}

/** The name of the tracing channel of each create: `tracing:plant-store:create:start`, .... */
export const CREATE_CHANNEL = 'plant-store:create';
/** The name of the tracing channel of each call of the store's `TokenVerifier`. */
export const VERIFIER_CHANNEL = 'plant-store:create:verifier';
/** The name of the tracing channel of each call of the store's `PlantRepository`. */
export const REPOSITORY_CHANNEL = 'plant-store:create:repository';

const diagnostics = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:diagnostics_channel') as DiagnosticsChannelModule | undefined;

/** A stand-in for a runtime without `diagnostics_channel`: nobody ever listens. */
const SILENT: Channel = { hasSubscribers: false, publish() {} };

/**
 * One tracing channel, kept for the process's life (Node forgets a channel nobody holds).
 * `active` is asked before any message is built, so a channel nobody listens to costs a few
 * property reads; Bun's `TracingChannel` has no `hasSubscribers` of its own, so it is asked of
 * each of the five channels here.
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

  /** Whether anyone listens to any of the five events. */
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

/** The tracing channel of creates. */
export const createTracer = new Tracer(CREATE_CHANNEL);
/** The tracing channel of verifier calls. */
export const verifierTracer = new Tracer(VERIFIER_CHANNEL);
/** The tracing channel of repository calls. */
export const repositoryTracer = new Tracer(REPOSITORY_CHANNEL);

/** Handlers of a tracing channel's events, as `TracingChannel.subscribe` takes them. */
export interface TracingHandlers<Message> {
  /** The call begins. */
  start?(message: Message): void;
  /** The call returned. */
  end?(message: Message): void;
  /** Its answer is in hand. */
  asyncStart?(message: Message): void;
  /** Its answer was handed on. */
  asyncEnd?(message: Message): void;
  /** It failed. */
  error?(message: Message): void;
}

/**
 * Subscribes to a tracing channel's events, where the runtime has `diagnostics_channel`.
 *
 * @param name The tracing channel's name.
 * @param handlers The events to hear.
 * @returns What unsubscribes them; does nothing on a runtime without channels.
 */
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
