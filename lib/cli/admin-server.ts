/**
 * The admin listener, on a port of its own so that the API's routes stay exactly the
 * contract's: `GET /livez` (the process answers), `GET /readyz` (`200` only when every
 * dependency can serve and the server is not shutting down; `503` otherwise, with which check
 * failed) and `GET /metrics` (Prometheus text).
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminSettings } from './operator-settings.ts';

/**
 * A check's answer: whether the dependency can serve now, alone or with details for the operator
 * beside `ready` (shown as they are in `/readyz`).
 */
export type ReadinessAnswer = boolean | { readonly ready: boolean };

/** One readiness check: its name and its answer. */
export interface ReadinessCheck {
  readonly name: string;
  readonly ready: () => Promise<ReadinessAnswer>;
}

/** What the admin listener serves. */
export interface AdminSources {
  /** The readiness checks (the database, the JWKS). */
  readonly checks: readonly ReadinessCheck[];
  /** Whether the server is shutting down: then it is not ready. */
  readonly stopping: () => boolean;
  /** The metrics, as Prometheus text. */
  readonly metrics: () => string;
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
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...JSON_TYPE, allow: 'GET, HEAD' });
      res.end(JSON.stringify({ error: 405, message: 'method not allowed' }));
      return;
    }
    if (path === '/livez') {
      res.writeHead(200, JSON_TYPE).end(JSON.stringify({ status: 'ok' }));
    } else if (path === '/readyz') {
      void readiness(sources).then(({ ready, checks }) => {
        res.writeHead(ready ? 200 : 503, JSON_TYPE);
        res.end(JSON.stringify({ status: ready ? 'ready' : 'not ready', checks }));
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

/** Every check's answer; a check that throws counts as not ready. */
async function readiness(
  sources: AdminSources,
): Promise<{ ready: boolean; checks: Record<string, ReadinessAnswer> }> {
  const checks: Record<string, ReadinessAnswer> = { shutdown: !sources.stopping() };
  await Promise.all(
    sources.checks.map(async ({ name, ready }) => {
      checks[name] = await ready().catch(() => false);
    }),
  );
  const ready = Object.values(checks).every((check) =>
    typeof check === 'boolean' ? check : check.ready,
  );
  return { ready, checks };
}
