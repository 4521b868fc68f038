import {
  type Context,
  type Counter,
  context,
  type Histogram,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { InstrumentationBase, type InstrumentationConfig } from '@opentelemetry/instrumentation';
import {
  CREATE_CHANNEL,
  REPOSITORY_CHANNEL,
  subscribeTracing,
  VERIFIER_CHANNEL,
} from '../diagnostics/channels.ts';
import type { CollaboratorChannelMessage, CreateChannelMessage } from '../diagnostics/messages.ts';

/** The instrumentation's name, as OpenTelemetry scopes its spans and metrics. */
const NAME = 'plant-store';
/** The package's version, as the instrumentation scope reports it. */
export const INSTRUMENTATION_VERSION = '0.1.0';
/** The route of a create through `handleCreatePlant`, mounted wherever the host chose. */
const ROUTE = '/plants';

/** The methods HTTP's semantic conventions name; any other is recorded as `_OTHER`. */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

/** Options of `PlantStoreInstrumentation`: OpenTelemetry's own (`enabled`, default true). */
export type PlantStoreInstrumentationConfig = InstrumentationConfig;

/** A create's span while it runs, and the context its collaborators' spans start in. */
interface CreateSpan {
  readonly span: Span;
  readonly context: Context;
  readonly startedAt: number;
}

/**
 * OpenTelemetry spans and metrics for every create of every store in the process.
 *
 * Register it with `registerInstrumentations`. It patches nothing: it hears the store's
 * diagnostics channels, so it may be registered before or after plant-store loads. A create is a
 * `POST /plants` span (server kind, or internal under an active span) with the HTTP
 * semantic-convention attributes plus `plant_store.outcome`, `plant_store.request_id` and
 * `plant_store.token_rejection_reason`, and child spans `TokenVerifier.verify` and
 * `PlantRepository.create`; its parent is the active span, or else the caller's `traceparent`.
 * The metrics are `http.server.request.duration` (seconds, by method, route and status) and
 * `plant_store.creates` (by outcome: `created`, `replayed`, `conflict` or the error code).
 * Tokens and bodies never reach a span.
 *
 * @example
 * ```ts
 * import { registerInstrumentations } from '@opentelemetry/instrumentation';
 * import { PlantStoreInstrumentation } from 'plant-store/otel';
 *
 * registerInstrumentations({ instrumentations: [new PlantStoreInstrumentation()] });
 * ```
 */
export class PlantStoreInstrumentation extends InstrumentationBase<PlantStoreInstrumentationConfig> {
  // Declared, not initialised: the base class's constructor calls enable() before they are set.
  declare private _unsubscribe: (() => void) | undefined;
  declare private _creates: WeakMap<CreateChannelMessage, CreateSpan> | undefined;
  declare private _calls: WeakMap<CollaboratorChannelMessage, Span> | undefined;
  declare private _duration: Histogram;
  declare private _outcomes: Counter;

  /**
   * Creates the instrumentation, enabled unless `config.enabled` is `false`.
   *
   * @param config OpenTelemetry's instrumentation options; `enabled: false` waits for `enable()`.
   */
  constructor(config: PlantStoreInstrumentationConfig = {}) {
    super(NAME, INSTRUMENTATION_VERSION, config);
  }

  /** Nothing to patch: the store publishes on diagnostics channels. */
  protected override init(): [] {
    return [];
  }

  protected override _updateMetricInstruments(): void {
    this._duration = this.meter.createHistogram('http.server.request.duration', {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [
          0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
        ],
      },
    });
    this._outcomes = this.meter.createCounter('plant_store.creates', {
      description: 'Creates, by what they came to: created, replayed, conflict or the error code.',
    });
  }

  /** Starts listening to the store's channels. */
  override enable(): void {
    super.enable();
    if (this._unsubscribe !== undefined) return;
    this._creates = new WeakMap();
    this._calls = new WeakMap();
    const stops = [
      subscribeTracing<CreateChannelMessage>(CREATE_CHANNEL, {
        start: (message) => this._createStarted(message),
        error: (message) => this._createFailed(message),
        asyncStart: (message) => this._createAnswered(message),
      }),
      ...[
        [VERIFIER_CHANNEL, 'TokenVerifier.verify'],
        [REPOSITORY_CHANNEL, 'PlantRepository.create'],
      ].map(([channel, spanName]) =>
        subscribeTracing<CollaboratorChannelMessage>(channel as string, {
          start: (message) => this._callStarted(message, spanName as string),
          error: (message) => this._callFailed(message),
          asyncStart: (message) => this._callAnswered(message),
        }),
      ),
    ];
    this._unsubscribe = () => {
      for (const stop of stops) stop();
    };
  }

  /** Stops listening; spans in flight are left unended. */
  override disable(): void {
    super.disable();
    this._unsubscribe?.();
    this._unsubscribe = undefined;
  }

  private _createStarted(message: CreateChannelMessage): void {
    const active = context.active();
    const underSpan = trace.getSpan(active) !== undefined;
    const parent = underSpan ? active : propagation.extract(active, traceCarrier(message));
    const method = methodOf(message);
    const span = this.tracer.startSpan(
      `${method === '_OTHER' ? 'HTTP' : method} ${routeOf(message)}`,
      {
        kind: underSpan ? SpanKind.INTERNAL : SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          ...(method === '_OTHER' ? { 'http.request.method_original': message.method } : {}),
          'http.route': routeOf(message),
          ...(message.path === undefined ? {} : { 'url.path': message.path }),
          ...(message.requestId === undefined
            ? {}
            : { 'plant_store.request_id': message.requestId }),
        },
      },
      parent,
    );
    this._creates?.set(message, {
      span,
      context: trace.setSpan(parent, span),
      startedAt: performance.now(),
    });
  }

  private _createFailed(message: CreateChannelMessage): void {
    const span = this._creates?.get(message)?.span;
    if (span !== undefined) recordError(span, message.error);
  }

  private _createAnswered(message: CreateChannelMessage): void {
    const created = this._creates?.get(message);
    if (created === undefined) return;
    this._creates?.delete(message);
    const { span, startedAt } = created;
    const status = message.status ?? 0;
    const outcome = message.outcome ?? 'created';
    span.setAttribute('http.response.status_code', status);
    span.setAttribute('plant_store.outcome', outcome);
    if (message.reason !== undefined) {
      span.setAttribute('plant_store.token_rejection_reason', message.reason);
    }
    if (status >= 400) span.setAttribute('error.type', outcome);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    this._duration.record((performance.now() - startedAt) / 1000, {
      'http.request.method': methodOf(message),
      'http.route': routeOf(message),
      'http.response.status_code': status,
      ...(status >= 400 ? { 'error.type': outcome } : {}),
    });
    this._outcomes.add(1, { 'plant_store.outcome': outcome });
  }

  private _callStarted(message: CollaboratorChannelMessage, name: string): void {
    const parent = this._creates?.get(message.create)?.context ?? context.active();
    const span = this.tracer.startSpan(name, { kind: SpanKind.INTERNAL }, parent);
    this._calls?.set(message, span);
  }

  private _callFailed(message: CollaboratorChannelMessage): void {
    const span = this._calls?.get(message);
    if (span === undefined) return;
    recordError(span, message.error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }

  private _callAnswered(message: CollaboratorChannelMessage): void {
    const span = this._calls?.get(message);
    if (span === undefined) return;
    this._calls?.delete(message);
    if (message.valid !== undefined) span.setAttribute('plant_store.token_valid', message.valid);
    if (message.reason !== undefined) {
      span.setAttribute('plant_store.token_rejection_reason', message.reason);
    }
    if (message.outcome !== undefined) span.setAttribute('plant_store.outcome', message.outcome);
    span.end();
  }
}

/** The caller's trace context headers, as the W3C propagator reads them. */
function traceCarrier(message: CreateChannelMessage): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (message.traceparent !== undefined) carrier.traceparent = message.traceparent;
  if (message.tracestate !== undefined) carrier.tracestate = message.tracestate;
  return carrier;
}

/** The route template the store matched, base path included; `/plants` where it is not known. */
function routeOf(message: CreateChannelMessage): string {
  return message.route ?? ROUTE;
}

/** The method as the semantic conventions record it: a made-up one would be a series of its own. */
function methodOf(message: CreateChannelMessage): string {
  return KNOWN_METHODS.has(message.method) ? message.method : '_OTHER';
}

/**
 * Records what went wrong on a span: an error as an exception event, with its type. An error
 * that throws when looked at is left out: a subscriber's throw would take the host down.
 */
function recordError(span: Span, error: unknown): void {
  try {
    if (error instanceof Error) {
      const code = (error as { code?: unknown }).code;
      span.setAttribute('error.type', typeof code === 'string' ? code : error.name);
      span.recordException(error);
    }
  } catch {
    // Nothing more can be said of such an error.
  }
}
