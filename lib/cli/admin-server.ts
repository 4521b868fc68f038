/**
 * The admin listener, on a port of its own so that the API's routes stay exactly the
 * contract's: `/livez`, `/readyz` and `/metrics`. Readiness asks the dependencies at most once
 * per `READY_CACHE_MS`, so that a probe flood does not become a query flood on the API's pool.
 * The port needs no credentials, so `/readyz` names the failed check and never an error's text
 * (a hostname, a database name): that goes to the log.
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminSettings } from './settings.ts';
import { pathOf } from '../store/url-path.ts';

export interface ReadinessResult {
  readonly ok: boolean;
  /** Shown under `details` (the JWKS keys' age): never an error's text. */
  readonly detail?: Readonly<Record<string, unknown>> | undefined;
  /** For the log only; it may come while still ready, as a failed refetch. */
  readonly error?: unknown;
}

export interface ReadinessCheck {
  /** `storage`, `jwks`. */
  readonly name: string;
  /** A throw or a rejection counts as not ready, and is logged. */
  readonly ready: () => Promise<ReadinessResult>;
}

export const READY_CACHE_MS = 1_000;

interface Findings {
  readonly checks: Record<string, boolean>;
  readonly details: Record<string, ReadinessResult['detail']>;
}

export interface AdminSources {
  readonly checks: readonly ReadinessCheck[];
  readonly stopping: () => boolean;
  readonly metrics: () => string;
  /** Reported beside the checks, never changing the status. */
  readonly saturation: () => Readonly<Record<string, unknown>> | undefined;
  readonly report: (check: string, error: unknown) => void;
}

export interface AdminHandle {
  readonly url: string;
  close(): Promise<void>;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Resolves once it listens. */
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

/** Probes within `READY_CACHE_MS` of a look share it, even while it runs. */
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
