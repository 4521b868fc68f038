/**
 * `plant-store/otel` with the OpenTelemetry SDK: spans and metrics through the SDK's in-memory
 * exporters, and once through the OTLP/HTTP exporter to a receiver the test starts (a small
 * `node:http` server that decodes OTLP/HTTP JSON).
 *
 * The SDK and the exporters come from this folder's own package (`npm ci --prefix test/otel`);
 * without it the suite is skipped and says so.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
  type PlantStore,
} from '../../lib/index.ts';
import { PlantStoreInstrumentation } from '../../lib/otel.ts';
import { INSTRUMENTATION_VERSION } from '../../lib/otel/plant-store-instrumentation.ts';
import { plantRequest, TOKEN } from '../support/web-fakes.ts';

const SDK = fileURLToPath(
  new URL('./node_modules/@opentelemetry/sdk-trace-node/', import.meta.url),
);
const skip = existsSync(SDK)
  ? false
  : 'the OpenTelemetry SDK is not installed: npm ci --prefix test/otel (kept out of the main install) to run these tests';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;
const BODY = '{"id":42,"name":"Monstera","tag":"aroid"}';

type Sdk = typeof import('@opentelemetry/sdk-trace-node');
type Metrics = typeof import('@opentelemetry/sdk-metrics');

/** A span as the tests read it: name, parent, attributes, status, and its children's names. */
function describeSpans(spans: readonly import('@opentelemetry/sdk-trace-node').ReadableSpan[]) {
  return spans.map((span) => ({
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    kind: span.kind,
    attributes: span.attributes,
    status: span.status.code,
  }));
}

describe('PlantStoreInstrumentation', { skip }, () => {
  let sdk: Sdk;
  let metrics: Metrics;
  let spans: InstanceType<Sdk['InMemorySpanExporter']>;
  let metricExporter: InstanceType<Metrics['InMemoryMetricExporter']>;
  let reader: InstanceType<Metrics['PeriodicExportingMetricReader']>;
  let instrumentation: PlantStoreInstrumentation;
  let store: PlantStore;

  before(async () => {
    sdk = await import('@opentelemetry/sdk-trace-node');
    metrics = await import('@opentelemetry/sdk-metrics');
    const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
    spans = new sdk.InMemorySpanExporter();
    const tracerProvider = new sdk.NodeTracerProvider({
      spanProcessors: [new sdk.SimpleSpanProcessor(spans)],
    });
    // The ALS context manager and the W3C propagator, as a host's SDK set-up registers them.
    tracerProvider.register();
    metricExporter = new metrics.InMemoryMetricExporter(metrics.AggregationTemporality.CUMULATIVE);
    reader = new metrics.PeriodicExportingMetricReader({
      exporter: metricExporter,
      exportIntervalMillis: 3_600_000,
    });
    const meterProvider = new metrics.MeterProvider({ readers: [reader] });
    instrumentation = new PlantStoreInstrumentation();
    registerInstrumentations({
      instrumentations: [instrumentation],
      tracerProvider,
      meterProvider,
    });
    store = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      repository: createMemoryRepository(),
      onError: () => {},
    });
  });

  after(() => instrumentation?.disable());

  it('makes a POST /plants span under the caller traceparent, with a child per collaborator, when a plant is created', async (t) => {
    spans.reset();
    const response = await store.fetch(
      plantRequest(BODY, { traceparent: TRACEPARENT, 'x-request-id': 'otel-1' }),
    );
    assert.equal(response.status, 200);
    const seen = describeSpans(spans.getFinishedSpans());
    const create = seen.find((span) => span.name === 'POST /plants');
    assert.ok(create, `no POST /plants span among ${seen.map((span) => span.name).join(', ')}`);
    assert.equal(create.traceId, TRACE_ID);
    assert.equal(create.parentSpanId, PARENT_SPAN_ID);
    assert.equal(create.kind, 1 /* SpanKind.SERVER */);
    assert.deepEqual(create.attributes, {
      'http.request.method': 'POST',
      'http.route': '/plants',
      'url.path': '/plants',
      'plant_store.request_id': 'otel-1',
      'http.response.status_code': 200,
      'plant_store.outcome': 'created',
    });
    const children = seen.filter((span) => span.parentSpanId === create.spanId);
    assert.deepEqual(
      children.map((span) => [span.name, span.traceId, span.attributes]),
      [
        ['TokenVerifier.verify', TRACE_ID, { 'plant_store.token_valid': true }],
        ['PlantRepository.create', TRACE_ID, { 'plant_store.outcome': 'created' }],
      ],
    );
    // The trace as text, as docs/observability.md shows it (node --import tsx --test this file).
    for (const line of traceText(spans.getFinishedSpans()).split('\n')) t.diagnostic(line);
    const text = JSON.stringify(spans.getFinishedSpans().map((span) => span.attributes));
    assert.ok(!text.includes(TOKEN) && !text.includes('Monstera'), 'a span holds a token or body');
  });

  it('marks a refused token with its reason, and a 500 as an error with the exception', async () => {
    spans.reset();
    await store.fetch(plantRequest(BODY, { authorization: 'Bearer wrong' }));
    const refused = describeSpans(spans.getFinishedSpans()).find((s) => s.name === 'POST /plants');
    assert.equal(refused?.attributes['http.response.status_code'], 401);
    assert.equal(refused?.attributes['error.type'], 'ERR_INVALID_TOKEN');
    assert.equal(refused?.attributes['plant_store.token_rejection_reason'], 'unknown_token');
    assert.equal(refused?.status, 0 /* UNSET: a 4xx is the client's */);

    spans.reset();
    const broken = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      repository: { create: async () => Promise.reject(new Error('disk full')) },
      onError: () => {},
    });
    assert.equal((await broken.fetch(plantRequest(BODY))).status, 500);
    const finished = spans.getFinishedSpans();
    const failed = finished.find((span) => span.name === 'POST /plants');
    assert.equal(failed?.status.code, 2 /* ERROR */);
    assert.equal(failed?.attributes['error.type'], 'ERR_INTERNAL');
    const repository = finished.find((span) => span.name === 'PlantRepository.create');
    assert.equal(repository?.status.code, 2);
    assert.equal(repository?.events[0]?.name, 'exception');
    assert.equal(repository?.events[0]?.attributes?.['exception.message'], 'disk full');
  });

  it('counts requests by status and creates by outcome, as the admin port does', async () => {
    await store.fetch(plantRequest('{"id":77,"name":"Pilea"}'));
    await store.fetch(plantRequest('{"id":77,"name":"Pilea"}'));
    await store.fetch(plantRequest('{"id":77,"name":"Ficus"}'));
    await reader.forceFlush();
    const exported = metricExporter.getMetrics().at(-1);
    const all = exported?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
    const scope = exported?.scopeMetrics.find((entry) => entry.scope.name === 'plant-store');
    assert.equal(scope?.scope.version, INSTRUMENTATION_VERSION);
    const outcomes = all.find((metric) => metric.descriptor.name === 'plant_store.creates');
    const byOutcome = Object.fromEntries(
      (outcomes?.dataPoints ?? []).map((point) => [
        point.attributes['plant_store.outcome'],
        point.value,
      ]),
    );
    assert.ok((byOutcome.created as number) >= 2, JSON.stringify(byOutcome));
    assert.equal(byOutcome.replayed, 1);
    assert.equal(byOutcome.conflict, 1);
    assert.ok((byOutcome.ERR_INVALID_TOKEN as number) >= 1);
    const duration = all.find(
      (metric) => metric.descriptor.name === 'http.server.request.duration',
    );
    assert.equal(duration?.descriptor.unit, 's');
    const statuses = (duration?.dataPoints ?? []).map(
      (point) => point.attributes['http.response.status_code'],
    );
    assert.ok(statuses.includes(200) && statuses.includes(409) && statuses.includes(401));
    const conflicts = duration?.dataPoints.find(
      (point) => point.attributes['http.response.status_code'] === 409,
    );
    assert.equal((conflicts?.value as { count: number } | undefined)?.count, 1);
  });

  it('names the full route the store matched, base path included, as http.route', async () => {
    spans.reset();
    const api = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      basePath: '/api/v1',
      onError: () => {},
    });
    const request = new Request('http://localhost/api/v1/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: BODY,
    });
    assert.equal((await api.fetch(request)).status, 200);
    const span = describeSpans(spans.getFinishedSpans()).find((s) => s.kind === 1);
    assert.equal(span?.name, 'POST /api/v1/plants');
    assert.equal(span?.attributes['http.route'], '/api/v1/plants');
  });

  it('records a method outside the standard set as _OTHER, so made-up methods make no new series', async () => {
    spans.reset();
    for (const method of ['BREW', 'PROPFIND', 'BREW']) {
      assert.equal((await store.fetch(plantRequest(null, {}, { method }))).status, 405);
    }
    const names = spans.getFinishedSpans().map((span) => span.name);
    assert.deepEqual(names, ['HTTP /plants', 'HTTP /plants', 'HTTP /plants']);
    const span = describeSpans(spans.getFinishedSpans())[0];
    assert.equal(span?.attributes['http.request.method'], '_OTHER');
    assert.equal(span?.attributes['http.request.method_original'], 'BREW');
    await reader.forceFlush();
    const all = metricExporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics);
    const duration = all?.find(
      (metric) => metric.descriptor.name === 'http.server.request.duration',
    );
    const methods = new Set(
      duration?.dataPoints.map((point) => point.attributes['http.request.method']),
    );
    assert.ok(
      methods.has('_OTHER') && !methods.has('BREW') && !methods.has('PROPFIND'),
      [...methods].join(),
    );
  });

  it('ends its spans and leaves the process up when a collaborator fails with an error that cannot be inspected', async () => {
    // A subscriber that throws takes the process down from diagnostics_channel's own tick.
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('hostile');
        },
        getPrototypeOf() {
          throw new Error('hostile');
        },
      },
    );
    const uncaught: unknown[] = [];
    const listener = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', listener);
    try {
      spans.reset();
      const broken = createPlantStore({
        verifier: createStaticTokenVerifier([TOKEN]),
        repository: { create: () => Promise.reject(hostile) },
        onError: () => {},
      });
      assert.equal((await broken.fetch(plantRequest(BODY))).status, 500);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(uncaught, []);
      const failed = spans.getFinishedSpans().find((span) => span.name === 'POST /plants');
      assert.equal(failed?.status.code, 2 /* ERROR */);
      assert.equal(failed?.attributes['error.type'], 'ERR_INTERNAL');
    } finally {
      process.removeListener('uncaughtException', listener);
    }
  });

  it('sends the spans to an OTLP/HTTP receiver through the OTLP exporter', async (t) => {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    const received: unknown[] = [];
    const receiver = createServer(async (req, res) => {
      received.push({ path: req.url, type: req.headers['content-type'], body: await json(req) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }).listen(0, '127.0.0.1');
    t.after(() => receiver.close());
    await new Promise((resolve) => receiver.once('listening', resolve));
    const { port } = receiver.address() as AddressInfo;
    const provider = new sdk.BasicTracerProvider({
      spanProcessors: [
        new sdk.SimpleSpanProcessor(
          new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` }),
        ),
      ],
    });
    const own = new PlantStoreInstrumentation();
    own.setTracerProvider(provider);
    t.after(() => own.disable());
    await store.fetch(plantRequest('{"id":1001,"name":"Calathea"}', { traceparent: TRACEPARENT }));
    await provider.forceFlush();
    const names = received.flatMap((entry) =>
      (entry as OtlpRequest).body.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => [scope.scope.name, span.name, span.traceId]),
        ),
      ),
    );
    assert.deepEqual((received[0] as OtlpRequest).path, '/v1/traces');
    assert.match(String((received[0] as OtlpRequest).type), /application\/json/);
    assert.deepEqual(names.sort(), [
      ['plant-store', 'POST /plants', TRACE_ID],
      ['plant-store', 'PlantRepository.create', TRACE_ID],
      ['plant-store', 'TokenVerifier.verify', TRACE_ID],
    ]);
    await provider.shutdown();
  });
});

/** What the receiver keeps of one OTLP/HTTP JSON export. */
interface OtlpRequest {
  readonly path: string;
  readonly type: string;
  readonly body: {
    resourceSpans: {
      scopeSpans: { scope: { name: string }; spans: { name: string; traceId: string }[] }[];
    }[];
  };
}

async function json(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** A trace as an indented tree: each span's name, duration and attributes under its parent. */
function traceText(finished: readonly import('@opentelemetry/sdk-trace-node').ReadableSpan[]) {
  const lines: string[] = [];
  const ids = new Set(finished.map((span) => span.spanContext().spanId));
  const visit = (parent: string | undefined, depth: number) => {
    for (const span of finished) {
      const parentId = span.parentSpanContext?.spanId;
      const isChild =
        parent === undefined ? parentId === undefined || !ids.has(parentId) : parentId === parent;
      if (!isChild) continue;
      const [seconds, nanos] = span.duration;
      const ms = (seconds * 1e3 + nanos / 1e6).toFixed(2);
      const indent = '  '.repeat(depth);
      const context = span.spanContext();
      lines.push(
        `${indent}${span.name}  ${ms} ms  trace ${context.traceId} span ${context.spanId}${parentId === undefined ? '' : ` parent ${parentId}`}`,
      );
      for (const [key, value] of Object.entries(span.attributes)) {
        lines.push(`${indent}    ${key} = ${JSON.stringify(value)}`);
      }
      visit(context.spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  return lines.join('\n');
}
