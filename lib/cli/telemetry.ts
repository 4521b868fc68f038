/**
 * The standalone server's OpenTelemetry: with `OTEL_EXPORTER_OTLP_ENDPOINT` set and the SDK's
 * packages installed, `PlantStoreInstrumentation`'s traces and metrics go there over OTLP/HTTP;
 * the exporters read the other standard `OTEL_*` variables themselves.
 *
 * @module
 */

import type { Logger } from './logger.ts';

export const TELEMETRY_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/instrumentation',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
] as const;

export interface Telemetry {
  shutdown(): Promise<void>;
}

/** What is used of the SDK's modules: optional packages, they bring no types here. */
interface Shutdown {
  shutdown(): Promise<void>;
}
interface Modules {
  readonly instrumentation: {
    registerInstrumentations(options: {
      instrumentations: unknown[];
      tracerProvider: unknown;
      meterProvider: unknown;
    }): () => void;
  };
  readonly resources: {
    resourceFromAttributes(attributes: Record<string, string>): unknown;
  };
  readonly traces: {
    NodeTracerProvider: new (config: {
      resource: unknown;
      spanProcessors: unknown[];
    }) => Shutdown & { register(): void };
    BatchSpanProcessor: new (exporter: unknown) => unknown;
  };
  readonly metrics: {
    MeterProvider: new (config: { resource: unknown; readers: unknown[] }) => Shutdown;
    PeriodicExportingMetricReader: new (options: {
      exporter: unknown;
      exportIntervalMillis: number;
    }) => unknown;
  };
  readonly traceExporter: { OTLPTraceExporter: new () => unknown };
  readonly metricExporter: { OTLPMetricExporter: new () => unknown };
  readonly otel: typeof import('../otel.ts');
}

/** By a variable name, so that the typecheck asks for no types. */
function importOptional<T>(name: string): Promise<T> {
  return import(name) as Promise<T>;
}

async function loadModules(): Promise<Modules> {
  const [instrumentation, resources, traces, metrics, traceExporter, metricExporter, otel] =
    await Promise.all([
      importOptional<Modules['instrumentation']>('@opentelemetry/instrumentation'),
      importOptional<Modules['resources']>('@opentelemetry/resources'),
      importOptional<Modules['traces']>('@opentelemetry/sdk-trace-node'),
      importOptional<Modules['metrics']>('@opentelemetry/sdk-metrics'),
      importOptional<Modules['traceExporter']>('@opentelemetry/exporter-trace-otlp-http'),
      importOptional<Modules['metricExporter']>('@opentelemetry/exporter-metrics-otlp-http'),
      import('../otel.ts'),
    ]);
  return { instrumentation, resources, traces, metrics, traceExporter, metricExporter, otel };
}

/** Says in the log whether it is on, and if not why; never stops the server from starting. */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  log: Logger,
  version: string,
): Promise<Telemetry | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint === '' || env.OTEL_SDK_DISABLED === 'true') {
    return undefined;
  }
  let origin: string;
  try {
    // Only the origin is logged: an endpoint may carry credentials in its user info or path.
    origin = new URL(endpoint).origin;
  } catch {
    log.warn('OpenTelemetry is off: OTEL_EXPORTER_OTLP_ENDPOINT is not a URL');
    return undefined;
  }
  let modules: Modules;
  try {
    modules = await loadModules();
  } catch {
    log.warn(
      'OpenTelemetry is off: OTEL_EXPORTER_OTLP_ENDPOINT is set, but its packages are not installed',
      {
        install: `npm install ${TELEMETRY_PACKAGES.join(' ')}`,
      },
    );
    return undefined;
  }
  const { instrumentation, resources, traces, metrics, traceExporter, metricExporter, otel } =
    modules;
  const resource = resources.resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME || 'plant-store',
    'service.version': version,
  });
  const tracerProvider = new traces.NodeTracerProvider({
    resource,
    spanProcessors: [new traces.BatchSpanProcessor(new traceExporter.OTLPTraceExporter())],
  });
  // The context manager and the W3C propagator, so a create joins its caller's trace.
  tracerProvider.register();
  const meterProvider = new metrics.MeterProvider({
    resource,
    readers: [
      new metrics.PeriodicExportingMetricReader({
        exporter: new metricExporter.OTLPMetricExporter(),
        // The standard variable, which the reader does not read itself.
        exportIntervalMillis: positiveNumber(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000,
      }),
    ],
  });
  const unregister = instrumentation.registerInstrumentations({
    instrumentations: [new otel.PlantStoreInstrumentation()],
    tracerProvider,
    meterProvider,
  });
  log.info('OpenTelemetry on: traces and metrics over OTLP/HTTP', { endpoint: origin });
  return {
    async shutdown() {
      unregister();
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}
