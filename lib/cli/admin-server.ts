/**
 * The admin listener, on a port of its own so that the API's routes stay exactly the
 * contract's: `GET /livez` (the process answers), `GET /readyz` (`200` only when every
 * dependency can serve and the server is not shutting down; `503` otherwise, naming the check
 * that failed) and `GET /metrics` (Prometheus text).
 *
 * Readiness asks the dependencies at most once a second, however many probes arrive: a probe
 * flood must not become a query flood on the pool the API serves from. The port needs no
 * credentials, so `/readyz` says which check failed and never an error's text (a hostname, a
 * database name): the error goes to the log.
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminSettings } from './settings.ts';
import { pathOf } from '../store/url-path.ts';

/** What one readiness check found. */
export interface ReadinessResult {
  /** Whether the dependency can serve now. */
  readonly ok: boolean;
  /** The dependency's state, shown under `details` (the JWKS keys' age): never an error's text. */
  readonly detail?: Readonly<Record<string, unknown>> | undefined;
  /** What went wrong (even while still ready, as a failed refetch), for the log only. */
  readonly error?: unknown;
}

/** One readiness check: its name, and an async look at its dependency. */
export interface ReadinessCheck {
  /** The name `/readyz` reports it under, such as `storage` or `jwks`. */
  readonly name: string;
  /** Looks at the dependency; a throw or a rejection counts as not ready, and is logged. */
  readonly ready: () => Promise<ReadinessResult>;
}

/** How long one look at the dependencies answers `/readyz`. */
export const READY_CACHE_MS = 1_000;

/** What `/readyz` answers with, but for the shutdown check. */
interface Findings {
  readonly checks: Record<string, boolean>;
  readonly details: Record<string, ReadinessResult['detail']>;
}

/** What the admin listener serves. */
export interface AdminSources {
  /** The readiness checks (the database, the JWKS). */
  readonly checks: readonly ReadinessCheck[];
  /** Whether the server is shutting down: then it is not ready. */
  readonly stopping: () => boolean;
  /** The metrics, as Prometheus text. */
  readonly metrics: () => string;
  /** What is saturated now (connections being refused), reported without changing the status. */
  readonly saturation: () => Readonly<Record<string, unknown>> | undefined;
  /** Hears what a check found wrong: the log. */
  readonly report: (check: string, error: unknown) => void;
}

/** A running admin listener. */
export interface AdminHandle {
  /** Its URL, with the real port. */
  readonly url: string;
  /** Stops it. */
  close(): Promise<void>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * Starts the admin listener.
 *
 * @param settings Where it listens.
 * @param sources What it answers with.
 * @returns Its handle, once it listens; rejects when it cannot.
 */
export function startAdminServer(
  settings: AdminSettings,
  sources: AdminSources,
): Promise<AdminHandle> {
  const findings = cached(sources.checks, sources.report);
  const server: Server = createServer((req, res) => {
    const path = pathOf(req.url ?? '/');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...JSON_TYPE, allow: 'GET, HEAD' });
      res.end(JSON.stringify({ error: 405, message: 'method not allowed' }));
      return;
    }
    if (path === '/livez') {
      res.writeHead(200, JSON_TYPE).end(JSON.stringify({ status: 'ok' }));
    } else if (path === '/readyz') {
      void findings().then((found) => {
        // Read now, never cached: a stop signal turns /readyz 503 at once.
        const checks = { shutdown: !sources.stopping(), ...found.checks };
        const ready = Object.values(checks).every(Boolean);
        const details = Object.keys(found.details).length === 0 ? {} : { details: found.details };
        const saturation = sources.saturation();
        res.writeHead(ready ? 200 : 503, JSON_TYPE);
        res.end(
          JSON.stringify({
            status: ready ? 'ready' : 'not ready',
            checks,
            ...details,
            ...(saturation === undefined ? {} : { saturation }),
          }),
        );
      });
    } else if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(sources.metrics());
    } else {
      res.writeHead(404, JSON_TYPE).end(JSON.stringify({ error: 404, message: 'not found' }));
    }
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * The checks' findings, looked at again only when the last look started `READY_CACHE_MS` ago or
 * more; probes that arrive meanwhile share it, even while it runs.
 */
function cached(
  checks: readonly ReadinessCheck[],
  report: AdminSources['report'],
): () => Promise<Findings> {
  let last: { readonly at: number; readonly findings: Promise<Findings> } | undefined;
  return () => {
    const now = performance.now();
    if (last === undefined || now - last.at >= READY_CACHE_MS) {
      last = { at: now, findings: look(checks, report) };
    }
    return last.findings;
  };
}

/** Every check's finding; a check that throws or rejects counts as not ready. */
async function look(
  checks: readonly ReadinessCheck[],
  report: AdminSources['report'],
): Promise<Findings> {
  const found: Findings = { checks: {}, details: {} };
  await Promise.all(
    checks.map(async ({ name, ready }) => {
      let result: ReadinessResult;
      try {
        result = await ready();
      } catch (error) {
        result = { ok: false, error };
      }
      const { ok, detail, error } = result;
      found.checks[name] = ok;
      if (detail !== undefined) found.details[name] = detail;
      if (error !== undefined) report(name, error);
    }),
  );
  return found;
}
