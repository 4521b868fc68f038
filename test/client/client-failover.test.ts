/**
 * `plant-store/client` through a real PostgreSQL failover: the standalone server on a primary
 * with a synchronous standby behind one address (`test/support/pg-failover.ts`), clients
 * creating plants with int64 ids while the primary stops and the standby is promoted. The
 * server answers `503` with `Retry-After` meanwhile; the client retries, and its callers see no
 * error. Needs PostgreSQL's server binaries; skips, saying why, without them.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createPlantClient } from '../../lib/client.ts';
import { READY, startCli } from '../support/cli-helpers.ts';
import { type Child, withDeadline } from '../support/node-helpers.ts';
import { failoverUnavailable, startPgFailover } from '../support/pg-failover.ts';

const TOKEN = 'client-failover-token';
const CALLERS = 10;
/** Ids past 2^53, where a double would round them: the top of int64, counted down. */
const TOP = 9223372036854775807n;

describe('plant-store/client through a PostgreSQL failover', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  it(
    'shows its callers no error and stores every plant exactly once when the primary stops and the standby is promoted mid-load',
    { skip: failoverUnavailable() ?? false, timeout: 90_000 },
    async (t) => {
      const cluster = await startPgFailover();
      // Every way out stops the callers first, a failure included (t.signal fires when an
      // uncaught error fails the test): callers left creating would hold the process for ever.
      const load = new AbortController();
      t.signal.addEventListener('abort', () => load.abort());
      let callers: Array<Promise<void>> = [];
      try {
        const server = startCli(
          {
            PORT: '0',
            PLANT_STORE_TOKENS: TOKEN,
            DATABASE_URL: cluster.url,
            PLANT_STORE_LOG: 'off',
          },
          children,
        );
        const [, url] = (await server.line(READY, 'the readiness line', 30_000)) as [
          string,
          string,
        ];
        // What the server answered each attempt, to see that the failover was felt at all.
        const seen = new Map<number | string, number>();
        const counted = async (request: Request) => {
          try {
            const response = await fetch(request);
            seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
            return response;
          } catch (error) {
            seen.set('network', (seen.get('network') ?? 0) + 1);
            throw error;
          }
        };
        // Retries enough to outlast a failover of a few seconds, as a caller would set them.
        const client = createPlantClient({
          baseUrl: url,
          token: TOKEN,
          fetch: counted,
          retry: { attempts: 20, baseDelayMs: 100, maxDelayMs: 1_000 },
          timeoutMs: 60_000,
        });
        const stored: bigint[] = [];
        const failures: unknown[] = [];
        let next = TOP;
        let stopping = false;
        callers = Array.from({ length: CALLERS }, async () => {
          while (!stopping && !load.signal.aborted) {
            const id = next--;
            try {
              const plant = await client.createPlant(
                { id, name: `plant ${id}` },
                { signal: load.signal },
              );
              assert.deepEqual(plant, { name: `plant ${id}` });
              stored.push(id);
            } catch (error) {
              if (load.signal.aborted) return;
              failures.push(error);
            }
          }
        });
        const until = async (what: string, check: () => boolean) =>
          withDeadline(
            (async () => {
              while (!check()) {
                load.signal.throwIfAborted();
                await sleep(25);
              }
            })(),
            what,
            20_000,
          );

        await until('100 plants created before the failover', () => stored.length >= 100);
        const before = stored.length;
        await cluster.failover();
        await until('100 plants created after the promotion', () => stored.length >= before + 100);
        stopping = true;
        await withDeadline(Promise.all(callers), 'the callers to finish', 60_000);
        assert.deepEqual(failures, [], 'a caller saw an error');
        const retried = (seen.get(503) ?? 0) + (seen.get('network') ?? 0);
        assert.ok(retried > 0, `the failover was not felt: ${JSON.stringify([...seen])}`);

        const promoted = new pg.Client({ connectionString: cluster.standbyUrl });
        await promoted.connect();
        try {
          const { rows } = await promoted.query<{ id: string; name: string }>(
            'SELECT id::text AS id, name FROM plants',
          );
          // Exactly the plants the callers were told are stored: none lost, none twice.
          assert.deepEqual(rows.map((row) => row.id).sort(), stored.map(String).sort());
          for (const row of rows) assert.equal(row.name, `plant ${row.id}`);
          t.diagnostic(`${rows.length} plants; attempts answered ${JSON.stringify([...seen])}`);
        } finally {
          await promoted.end();
        }
      } finally {
        load.abort();
        for (const child of children) child.kill();
        try {
          await withDeadline(Promise.all(callers), 'the callers to stop', 5_000);
        } finally {
          await cluster.close();
        }
      }
    },
  );
});
