/**
 * The standalone server (`npm start`, the `plant-store` bin): the plant store and `/docs` over
 * `node:http`, set from the environment. Bad settings exit 2 before anything listens, what
 * cannot be loaded or reached exits 1; stdout, which a log shipper may read, carries only log
 * lines and the `plant-store listening on …` line.
 *
 * @module
 */

import { createCors } from '../cors.ts';
import { withDocs } from '../docs.ts';
import { createPlantStore } from '../index.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type ServeHandle, serve } from '../node.ts';
import { type AdminHandle, type ReadinessCheck, startAdminServer } from './admin-server.ts';
import { createVerifier } from './auth.ts';
import { fail, oneLine } from './fail.ts';
import { helpText, packageVersion } from './help.ts';
import { createLogger, droppingOutput } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { createRefusals } from './refusals.ts';
import { parseSettings } from './settings.ts';
import { onStopSignals } from './signals.ts';
import { openStorage, type Storage } from './storage.ts';
import { startTelemetry, type Telemetry } from './telemetry.ts';

const argument = process.argv[2];
if (argument === '--help' || argument === '-h') {
  process.stdout.write(helpText());
  process.exit(0);
}
if (argument === '--version' || argument === '-v') {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
if (argument !== undefined) fail(2, `unknown argument ${JSON.stringify(argument)} (try --help)`);

const parsed = parseSettings(process.env);
if (!parsed.ok) fail(2, parsed.error);
const { settings } = parsed;
const stdout = droppingOutput(process.stdout, (note) => process.stderr.write(note));
const log = createLogger(settings.log, stdout);

let storage: Storage | undefined;
let handle: ServeHandle | undefined;
let admin: AdminHandle | undefined;
let telemetry: Telemetry | undefined;
let stopping = false;

function exit(code: number): never {
  log.flush();
  process.exit(code);
}

// Installed before the database and the listener, so a signal during start-up ends cleanly.
onStopSignals(
  (signal) => {
    stopping = true;
    // Nothing listens yet: nothing to drain, and an opening pool dies with the process.
    const listening = handle;
    if (listening === undefined) exit(0);
    const started = performance.now();
    const { drainMs } = settings;
    const closed = listening.close();
    const noNewConnections = (): void =>
      log.info('stopping: no new connections; in-flight requests may finish', {
        signal,
        graceMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
      });
    if (drainMs === 0) {
      noNewConnections();
    } else {
      log.info('draining: not ready, still serving, every answer with Connection: close', {
        signal,
        drainMs,
      });
      // close() stops accepting after the same delay, its shutdownDelay.
      setTimeout(noNewConnections, drainMs);
    }
    void closed
      .then(() => storage?.close())
      .then(() => admin?.close())
      .then(() => telemetry?.shutdown())
      .then(() => {
        log.info('stopped', { durationMs: Math.round(performance.now() - started) });
        exit(0);
      });
  },
  (signal) => {
    log.warn('stopping at once: a second signal', { signal });
    exit(0);
  },
);

const auth = await createVerifier(settings.auth);
storage = await openStorage(settings, log);
telemetry = await startTelemetry(process.env, log, packageVersion());
// Only the admin listener reads the metrics: without it, nothing is counted.
const metrics = settings.admin === undefined ? undefined : createMetrics(storage.pool);
metrics?.countCreates();
const { limits } = settings;
// Read only once the server listens, which is before any connection can be refused.
const refusals = createRefusals(log, () => handle?.maxConnections ?? 0);

const store = createPlantStore({
  repository: storage.repository,
  verifier: auth.verifier,
  onError: (error, context) => log.error(error, context),
  cors: settings.cors === undefined ? undefined : createCors(settings.cors),
  maxBodyBytes: limits.maxBodyBytes,
  timeoutMs: limits.timeoutMs,
  publicUrl: settings.location.publicUrl,
  basePath: settings.location.basePath || '/',
});

try {
  handle = await serve({
    // The reference page at /docs; /plants keeps the Node adapter's fast path.
    fetch: withDocs(store.fetch),
    port: settings.port,
    host: settings.host,
    onError: (error) => log.error(error),
    shutdownDelay: settings.drainMs,
    shutdownTimeout: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    maxConnections: limits.maxConnections,
    onConnectionRefused: () => {
      metrics?.connectionRefused();
      refusals.refused();
    },
    requestIds: true,
    // Followed to its end only for the access log or the metrics: without them, it costs its id.
    onRequestStart: metrics?.requestStarted,
    onRequestEnd:
      metrics === undefined && !log.logsRequests
        ? undefined
        : (record) => {
            metrics?.requestEnded(record);
            log.request(record);
          },
  });
} catch (error) {
  fail(1, `cannot listen on ${settings.host}:${settings.port}: ${oneLine(error)}`);
}

// The metrics exist exactly when the admin listener is asked for.
if (settings.admin !== undefined && metrics !== undefined) {
  const checks: ReadinessCheck[] = [{ name: 'storage', ready: storage.ready }];
  if (auth.readiness !== undefined) checks.push(auth.readiness);
  try {
    admin = await startAdminServer(settings.admin, {
      checks,
      stopping: () => stopping,
      metrics: () => metrics.exposition(),
      saturation: refusals.saturation,
      report: (check, error) => log.error(error, { check }),
    });
  } catch (error) {
    fail(1, `cannot listen on the admin port ${settings.admin.port}: ${oneLine(error)}`);
  }
}

// On stderr: stdout goes to whatever ships the logs, and the token is a secret.
if (auth.generatedToken !== undefined) {
  process.stderr.write(`plant-store token: ${auth.generatedToken}\n`);
}
// The API's URL, under its base path: where /plants and /docs answer.
const apiUrl = `${handle.url}${settings.location.basePath}`;
log.info('started', {
  version: packageVersion(),
  url: apiUrl,
  storage: storage.description,
  auth: auth.mode,
  cors: settings.cors === undefined ? 'off' : settings.cors.origins,
  admin: admin?.url ?? 'off',
  publicUrl: settings.location.publicUrl ?? 'off',
  basePath: settings.location.basePath || '/',
  limits: {
    maxBodyBytes: limits.maxBodyBytes,
    timeoutMs: limits.timeoutMs,
    keepAliveTimeoutMs: limits.keepAliveTimeoutMs,
    maxConnections: handle.maxConnections,
  },
});
if (settings.storage.kind === 'memory') {
  log.warn('plants are kept in memory and lost at exit: set DATABASE_URL to keep them');
}
if (handle.maxConnections < limits.maxConnections) {
  // `serve` keeps the cap within the descriptors the process may open.
  log.warn(
    `at most ${handle.maxConnections} connections at once, not ${limits.maxConnections}: the open-file limit leaves room for no more (raise it with ulimit -n)`,
    { maxConnections: handle.maxConnections, asked: limits.maxConnections },
  );
}
log.flush();
stdout.write(`plant-store listening on ${apiUrl}\n`);
