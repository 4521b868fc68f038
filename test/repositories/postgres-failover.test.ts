/**
 * The standalone server on PostgreSQL through a real failover: a primary with a synchronous
 * standby behind one address (`test/support/pg-failover.ts`), the primary stopped under load and
 * the standby promoted. Needs PostgreSQL's server binaries; skips, saying why, without them.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { get } from 'node:http';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { postPlant, READY, startCli } from '../support/cli-helpers.ts';
import { type Child, withDeadline } from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';
import { failoverUnavailable, startPgFailover } from '../support/pg-failover.ts';

const TOKEN = 'failover-token';
const WORKERS = 20;

/** One answered create. */
interface Answer {
  readonly id: number;
  readonly status: number;
  readonly retryAfter: string | null;
  /** When it was answered (`Date.now()`). */
  readonly at: number;
  /** Why there was no answer the OpenAPI document declares (status 0). */
  readonly error?: unknown;
}

const plantOf = (id: number) => ({ name: `plant ${id}`, tag: id % 2 === 0 ? 'even' : undefined });

/** A request to the server that failed, with what the server shows: whether it runs, its stderr. */
function serverFailed(child: Child, what: string, error: Error): Error {
  const { exitCode, signalCode } = child.process;
  const state =
    exitCode === null && signalCode === null ? 'runs' : `exited (${exitCode ?? signalCode})`;
  return new Error(
    `${what}: ${error.message}; the server ${state}; its stderr ends: ${child.stderr().slice(-1_000)}`,
    { cause: error },
  );
}

describe('the standalone server on PostgreSQL through a failover', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  for (const [mode, how] of [
    ['fast', 'shuts down'],
    ['immediate', 'crashes'],
  ] as const) {
    it(
      `answers only 200 or 503 with Retry-After, loses no plant answered 200, and serves again within seconds when the primary ${how} under load and its standby is promoted`,
      { skip: failoverUnavailable() ?? false, timeout: 90_000 },
      async (t) => {
        const cluster = await startPgFailover();
        // Every way out stops the load first, a failure included (t.signal fires when an
        // uncaught error fails the test): clients left creating would hold the process for ever.
        const load = new AbortController();
        t.signal.addEventListener('abort', () => load.abort());
        let workers: Array<Promise<void>> = [];
        try {
          // Port 0 for both, which no other process can take first; the started line names them.
          const child = startCli(
            {
              PORT: '0',
              PLANT_STORE_TOKENS: TOKEN,
              DATABASE_URL: cluster.url,
              PLANT_STORE_ADMIN_PORT: '0',
              PLANT_STORE_LOG: 'json',
            },
            children,
          );
          const [, url] = (await child.line(READY, 'the readiness line', 30_000)) as [
            string,
            string,
          ];
          const started = child
            .stdout()
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as { msg?: string; admin?: string })
            .find((line) => line.msg === 'started');
          const admin = started?.admin as string;
          // A connection of its own each time: a kept-alive one may be closed by the server just
          // as it is reused, while the failover keeps the test away for seconds.
          const readiness = () =>
            new Promise<number>((resolve, reject) => {
              get(`${admin}/readyz`, { agent: false }, (response) => {
                response.resume();
                resolve(response.statusCode ?? 0);
              }).on('error', (error) => reject(serverFailed(child, 'GET /readyz', error)));
            });

          const answers: Answer[] = [];
          let nextId = 1;
          let stopping = false;
          // Twenty clients, each creating one plant after another; one that hears 503 backs off a
          // little, as a client honouring Retry-After would, only shorter.
          workers = Array.from({ length: WORKERS }, async () => {
            while (!stopping && !load.signal.aborted) {
              const id = nextId++;
              try {
                const body = { id, ...plantOf(id) };
                const response = await postPlant(url, TOKEN, body, 20_000, load.signal);
                const retryAfter = response.headers.get('retry-after');
                await assertMatchesOpenApi(response);
                answers.push({ id, status: response.status, retryAfter, at: Date.now() });
                if (response.status === 200) continue;
              } catch (error) {
                if (load.signal.aborted) return;
                // Status 0: no answer, or one outside the OpenAPI document; asserted below.
                answers.push({ id, status: 0, retryAfter: null, at: Date.now(), error });
              }
              await sleep(50);
            }
          });
          const answered = (status: number, since = 0) =>
            answers.filter((answer) => answer.status === status && answer.at >= since).length;
          const waitFor = async (
            what: string,
            check: () => boolean | Promise<boolean>,
            ms = 15_000,
          ) => {
            await withDeadline(
              (async () => {
                while (!(await check())) {
                  load.signal.throwIfAborted();
                  await sleep(25);
                }
              })(),
              what,
              ms,
            );
          };

          await waitFor('100 creates stored before the failover', () => answered(200) >= 100);
          // A probe that says "not ready" is tried again, as a load balancer does; one that gets
          // no answer fails the test.
          await waitFor(
            '/readyz to say 200 before the failover',
            async () => (await readiness()) === 200,
            5_000,
          );

          await cluster.stopPrimary(mode);
          cluster.switchToStandby();
          // The address now reaches a standby, which answers but cannot store: not ready.
          await waitFor(
            '/readyz to say 503 while the address reaches a standby',
            async () => (await readiness()) === 503,
            5_000,
          );
          await cluster.promoteStandby();
          const promotedAt = Date.now();

          await waitFor(
            'a create stored after the promotion',
            () => answered(200, promotedAt) > 0,
            10_000,
          );
          const backAt = answers.find((answer) => answer.status === 200 && answer.at >= promotedAt)
            ?.at as number;
          // A second of steady service, then stop the load.
          await sleep(1_000);
          stopping = true;
          await withDeadline(Promise.all(workers), 'the clients to finish', 25_000);

          const statuses = new Map<number, number>();
          for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const failed = answers.find(({ status }) => status === 0);
          const summary = `${JSON.stringify(Object.fromEntries(statuses))}${failed === undefined ? '' : `; ${String(failed.error)}; server stderr: ${child.stderr().slice(-500)}`}`;
          assert.deepEqual(
            [...statuses.keys()].filter((status) => status !== 200 && status !== 503),
            [],
            summary,
          );
          for (const answer of answers.filter(({ status }) => status === 503)) {
            assert.equal(answer.retryAfter, '1', `a 503 without Retry-After: ${summary}`);
          }
          t.diagnostic(
            `answers ${summary}; served again ${backAt - promotedAt} ms after the promotion`,
          );
          assert.ok(
            backAt - promotedAt < 5_000,
            `served again ${backAt - promotedAt} ms after the promotion`,
          );
          const lastRefused = Math.max(
            0,
            ...answers.filter(({ status }) => status !== 200).map(({ at }) => at),
          );
          assert.ok(
            lastRefused < backAt + 2_000,
            `a 503 ${lastRefused - backAt} ms after service was back: ${summary}`,
          );

          // Every plant answered 200 is on the promoted server, as it was answered.
          const promoted = new pg.Client({ connectionString: cluster.standbyUrl });
          await promoted.connect();
          try {
            const { rows } = await promoted.query<{ id: string; name: string; tag: string | null }>(
              'SELECT id::text AS id, name, tag FROM plants',
            );
            const byId = new Map(rows.map((row) => [Number(row.id), row]));
            for (const { id } of answers.filter(({ status }) => status === 200)) {
              const { name, tag } = plantOf(id);
              assert.deepEqual(
                byId.get(id),
                { id: String(id), name, tag: tag ?? null },
                `plant ${id} was answered 200`,
              );
            }
          } finally {
            await promoted.end();
          }

          // Each create answered 503 is safe to retry: stored or not, the retry is a 200.
          for (const { id } of answers.filter(({ status }) => status === 503)) {
            const retry = await postPlant(url, TOKEN, { id, ...plantOf(id) });
            assert.equal(retry.status, 200, `the retry of ${id}`);
            await assertMatchesOpenApi(retry);
          }

          // /readyz is ready again, and /metrics counted what the clients saw.
          await waitFor(
            '/readyz to say 200 after the promotion',
            async () => (await readiness()) === 200,
            5_000,
          );
          const metrics = await (await fetch(`${admin}/metrics`)).text();
          for (const [status, count] of statuses) {
            const line = new RegExp(
              `^plant_store_requests_total\\{route="/plants",status="${status}"\\} (\\d+)$`,
              'm',
            );
            assert.ok(Number(metrics.match(line)?.[1]) >= count, `metrics for ${status}`);
          }
          assert.doesNotMatch(metrics, /status="500"/);
        } finally {
          load.abort();
          for (const child of children) child.kill();
          try {
            await withDeadline(Promise.all(workers), 'the clients to stop', 5_000);
          } finally {
            await cluster.close();
          }
        }
      },
    );
  }
});
