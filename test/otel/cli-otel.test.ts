/**
 * The standalone server with `OTEL_EXPORTER_OTLP_ENDPOINT`: its spans and metrics reach an
 * OTLP/HTTP receiver the test starts when the packages are installed (here, this folder's own,
 * through `packages.mjs`), and it says at start whether OpenTelemetry is on.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { postPlant, READY, startCli } from '../support/cli-helpers.ts';
import { type Child, withDeadline } from '../support/node-helpers.ts';

const PACKAGES = fileURLToPath(new URL('./packages.mjs', import.meta.url));
const SDK = fileURLToPath(
  new URL('./node_modules/@opentelemetry/sdk-trace-node/', import.meta.url),
);
const skip = existsSync(SDK)
  ? false
  : 'the OpenTelemetry SDK is not installed: npm ci --prefix test/otel (kept out of the main install) to run these tests';
const TOKEN = 'otel-cli-token';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** An OTLP/HTTP JSON receiver: every export it got, by path. */
async function startReceiver(t: { after(fn: () => void): void }) {
  const exports: Array<{ path: string; body: unknown }> = [];
  const server = createServer(async (req, res) => {
    exports.push({ path: req.url ?? '', body: await json(req) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }).listen(0, '127.0.0.1');
  t.after(() => server.close());
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports };
}

async function json(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

describe('the standalone server with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  it(
    'sends traces and metrics to the endpoint, and says so at start, when the packages are installed',
    { skip },
    async (t) => {
      const receiver = await startReceiver(t);
      const child = startCli(
        {
          PORT: '0',
          PLANT_STORE_TOKENS: TOKEN,
          PLANT_STORE_LOG: 'json',
          OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
          OTEL_BSP_SCHEDULE_DELAY: '50',
          OTEL_METRIC_EXPORT_INTERVAL: '100',
        },
        children,
        ['--import', PACKAGES],
      );
      const [, url] = await child.line(READY, 'the ready line');
      assert.match(child.stdout(), /OpenTelemetry on: traces and metrics over OTLP\/HTTP/);
      const response = await withDeadline(
        fetch(`${url}/plants`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
          },
          body: '{"id":1,"name":"Fern"}',
        }),
        'the create',
      );
      assert.equal(response.status, 200);
      const spanNames = () =>
        receiver.exports
          .filter((entry) => entry.path === '/v1/traces')
          .flatMap((entry) => JSON.stringify(entry.body).match(/"name":"[^"]+"/g) ?? []);
      const metricNames = () =>
        receiver.exports
          .filter((entry) => entry.path === '/v1/metrics')
          .flatMap(
            (entry) => JSON.stringify(entry.body).match(/"name":"plant_store\.[^"]+"/g) ?? [],
          );
      // Polled until both arrive; the poll stops with the deadline, so a miss fails, not hangs.
      let waiting = true;
      const arrived = () =>
        spanNames().includes('"name":"POST /plants"') && metricNames().length > 0;
      await withDeadline(
        (async () => {
          while (waiting && !arrived()) await new Promise((resolve) => setTimeout(resolve, 50));
        })(),
        'the exports',
        10_000,
      ).finally(() => {
        waiting = false;
      });
      const traces = JSON.stringify(
        receiver.exports.filter((entry) => entry.path === '/v1/traces'),
      );
      assert.ok(traces.includes(TRACE_ID), 'the span joined the caller trace');
      assert.ok(traces.includes('"stringValue":"plant-store"'), 'the service is named plant-store');
      assert.ok(!traces.includes(TOKEN), 'a span holds the token');
      assert.ok(metricNames().includes('"name":"plant_store.creates"'));
    },
  );

  it('serves on without OpenTelemetry, and names the packages to install, when they are not installed', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_LOG: 'json',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        TEST_HIDE_PACKAGES: '@opentelemetry/sdk-trace-node',
      },
      children,
      ['--import', fileURLToPath(new URL('../support/hide-packages.mjs', import.meta.url))],
    );
    const [, url] = await child.line(READY, 'the ready line');
    assert.match(
      child.stdout(),
      /OpenTelemetry is off: OTEL_EXPORTER_OTLP_ENDPOINT is set, but its packages are not installed.*npm install @opentelemetry\/api/,
    );
    assert.equal((await postPlant(url as string, TOKEN, { id: 2, name: 'Ivy' })).status, 200);
  });
});
