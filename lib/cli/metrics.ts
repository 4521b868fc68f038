/**
 * The standalone server's metrics as Prometheus text (version 0.0.4): a few counters and one
 * histogram of our own rather than a metrics library, for the same reason as the log's.
 *
 * @module
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CREATE_CHANNEL, type CreateChannelMessage } from '../index.ts';
import type { RequestRecord } from '../node.ts';

/** Seconds, from a fast create to the store's deadline. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `pg.Pool` has these. */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface Metrics {
  requestStarted(): void;
  requestEnded(record: RequestRecord): void;
  connectionRefused(): void;
  /** Hears every create's outcome on the create channel; returns what stops it. */
  countCreates(): () => void;
  exposition(): string;
}

/** A label with few values, whatever paths clients ask for. */
function routeOf(path: string): string {
  if (path === '/plants' || path === '/openapi.json') return path;
  if (path === '/docs' || path.startsWith('/docs/')) return '/docs';
  return 'other';
}

export function createMetrics(pool?: PoolCounts): Metrics {
  const requests = new Map<string, number>();
  const durations = new Map<string, { counts: number[]; sum: number; count: number }>();
  let inFlight = 0;
  let refusedConnections = 0;
  const plants = { created: 0, replays: 0, conflicts: 0 };
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();

  return {
    requestStarted() {
      inFlight++;
    },
    requestEnded(record) {
      inFlight--;
      const route = routeOf(record.path);
      const key = `${route}\u0000${record.status}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
      let histogram = durations.get(route);
      if (histogram === undefined) {
        histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
        durations.set(route, histogram);
      }
      const seconds = record.durationMs / 1000;
      for (let i = 0; i < BUCKETS.length; i++) {
        if (seconds <= (BUCKETS[i] as number))
          histogram.counts[i] = (histogram.counts[i] as number) + 1;
      }
      histogram.sum += seconds;
      histogram.count++;
    },
    connectionRefused() {
      refusedConnections++;
    },
    countCreates() {
      // A create's reply is ready at asyncStart, with what it came to.
      const name = `tracing:${CREATE_CHANNEL}:asyncStart`;
      const count = (message: unknown) => {
        const { outcome } = message as CreateChannelMessage;
        if (outcome === 'created') plants.created++;
        else if (outcome === 'replayed') plants.replays++;
        else if (outcome === 'conflict') plants.conflicts++;
      };
      subscribe(name, count);
      return () => unsubscribe(name, count);
    },
    exposition() {
      const lines: string[] = [];
      const family = (name: string, type: string, help: string) =>
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      family('plant_store_requests_total', 'counter', 'Requests answered, by route and status.');
      for (const [key, value] of requests) {
        const [route, status] = key.split('\u0000');
        lines.push(`plant_store_requests_total{route="${route}",status="${status}"} ${value}`);
      }
      family(
        'plant_store_request_duration_seconds',
        'histogram',
        'Time from a request head to the end of its response.',
      );
      for (const [route, histogram] of durations) {
        BUCKETS.forEach((bound, i) => {
          lines.push(
            `plant_store_request_duration_seconds_bucket{route="${route}",le="${bound}"} ${histogram.counts[i]}`,
          );
        });
        lines.push(
          `plant_store_request_duration_seconds_bucket{route="${route}",le="+Inf"} ${histogram.count}`,
          `plant_store_request_duration_seconds_sum{route="${route}"} ${histogram.sum}`,
          `plant_store_request_duration_seconds_count{route="${route}"} ${histogram.count}`,
        );
      }
      family('plant_store_requests_in_flight', 'gauge', 'Requests being answered now.');
      lines.push(`plant_store_requests_in_flight ${inFlight}`);
      family(
        'plant_store_connections_refused_total',
        'counter',
        'New connections closed unanswered: every open one was busy at the cap.',
      );
      lines.push(`plant_store_connections_refused_total ${refusedConnections}`);
      family('plant_store_plants_created_total', 'counter', 'Creates that stored a new plant.');
      lines.push(`plant_store_plants_created_total ${plants.created}`);
      family('plant_store_plant_replays_total', 'counter', 'Creates that repeated a stored plant.');
      lines.push(`plant_store_plant_replays_total ${plants.replays}`);
      family(
        'plant_store_plant_conflicts_total',
        'counter',
        'Creates refused: the id holds another plant.',
      );
      lines.push(`plant_store_plant_conflicts_total ${plants.conflicts}`);
      if (pool !== undefined) {
        family(
          'plant_store_pg_pool_connections',
          'gauge',
          'PostgreSQL pool connections, by state.',
        );
        lines.push(
          `plant_store_pg_pool_connections{state="total"} ${pool.totalCount}`,
          `plant_store_pg_pool_connections{state="idle"} ${pool.idleCount}`,
          `plant_store_pg_pool_connections{state="waiting"} ${pool.waitingCount}`,
        );
      }
      const cpu = process.cpuUsage();
      const memory = process.memoryUsage();
      family('process_cpu_seconds_total', 'counter', 'CPU time spent, user and system.');
      lines.push(`process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`);
      family('process_resident_memory_bytes', 'gauge', 'Resident memory.');
      lines.push(`process_resident_memory_bytes ${memory.rss}`);
      family('process_start_time_seconds', 'gauge', 'When the process started, in Unix seconds.');
      lines.push(`process_start_time_seconds ${Math.round(Date.now() / 1000 - process.uptime())}`);
      family('nodejs_heap_used_bytes', 'gauge', 'V8 heap in use.');
      lines.push(`nodejs_heap_used_bytes ${memory.heapUsed}`);
      family('nodejs_eventloop_delay_p99_seconds', 'gauge', 'Event-loop delay, 99th percentile.');
      lines.push(`nodejs_eventloop_delay_p99_seconds ${loopDelay.percentile(99) / 1e9}`);
      return `${lines.join('\n')}\n`;
    },
  };
}
