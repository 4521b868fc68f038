/**
 * A rolling restart behind a real load balancer, as operators run one: Debian's HAProxy, with the
 * configuration docs/deploy.md shows (`examples/haproxy.cfg`), in front of two standalone servers
 * on one PostgreSQL table, health-checking their `/readyz`; under steady load, each server in
 * turn gets SIGTERM, exits, starts again and is awaited until HAProxy sends it traffic again.
 * Twice at once: HAProxy as commonly configured (`retries 3`, `option redispatch`) and plain (no
 * retries, no redispatch), which is what most cloud balancers and Kubernetes Services do. Plain
 * HTTP callers must see no failure at all, every `200` must be stored, and the typed client must
 * see no failure either.
 */

import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPlantClient } from '../../lib/client.ts';
import { cliEnv, READY, ROOT } from '../support/cli-helpers.ts';
import { type Haproxy, noHaproxy, startHaproxy } from '../support/haproxy.ts';
import { type OwnSchema, ownSchema } from '../support/pg-schema.ts';
import {
  type Child,
  delay,
  freePort,
  pollUntil,
  spawnChild,
  withDeadline,
} from '../support/node-helpers.ts';

const TOKEN = 'rolling-token';
/** Each balancer's steady load: keep-alive connections, each sending one create after another. */
const CALLERS = 50;
/** Typed clients per balancer, each creating one plant after another. */
const CLIENTS = 2;
/**
 * Above what HAProxy takes to see a server leave: two failed checks (`fall 2`) half a second
 * apart (`inter 500ms`), plus room for a busy machine; short, so the file stays well under a
 * minute.
 */
const DRAIN_MS = 2_000;
/** The load before and after the restarts, so that both ends run at a steady state. */
const STEADY_MS = 1_000;

/** One standalone server: its fixed ports, kept across its restart, and its running process. */
interface Instance {
  readonly name: 'a' | 'b';
  readonly port: number;
  readonly adminPort: number;
  child?: Child;
}

/** One HAProxy and what its callers saw. */
interface Balancer {
  readonly name: string;
  readonly url: string;
  readonly haproxy: Haproxy;
  readonly tally: Tally;
}

interface Tally {
  sent: number;
  /** How many failed (a status other than 200, a reset, an error), and the first few. */
  failed: number;
  readonly failures: string[];
  /** Every id answered 200 (or resolved by the typed client), with the name sent. */
  readonly answered: Map<string, string>;
  clientCreates: number;
  readonly clientFailures: string[];
}

/**
 * The documented configuration with this test's loopback ports for the documented addresses;
 * `plain` drops the retries and the redispatch.
 */
function configFor(
  text: string,
  ports: { api: number; stats: number },
  instances: readonly Instance[],
  plain: boolean,
): string {
  const replace = (from: RegExp, to: string): void => {
    assert.equal(text.match(new RegExp(from, 'gm'))?.length, 1, `${from} in the configuration`);
    text = text.replace(new RegExp(from, 'm'), to);
  };
  replace(/^ {4}bind :8080$/, `    bind 127.0.0.1:${ports.api}`);
  replace(/^ {4}bind 127\.0\.0\.1:8404$/, `    bind 127.0.0.1:${ports.stats}`);
  for (const { name, port, adminPort } of instances) {
    replace(
      new RegExp(`^ {4}server ${name} 10\\.0\\.0\\.\\d+:3000 check port 9090$`),
      `    server ${name} 127.0.0.1:${port} check port ${adminPort}`,
    );
  }
  if (plain) {
    replace(/^ {4}retries 3$/, '    retries 0');
    replace(/^ {4}option redispatch\n/, '');
  }
  return text;
}

/** `POST /plants` over a keep-alive agent, as a plain HTTP caller sends it. */
function post(
  agent: Agent,
  url: string,
  body: string,
  signal: AbortSignal,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/plants`,
      {
        method: 'POST',
        agent,
        signal,
        timeout: 10_000,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode as number, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('the standalone server behind HAProxy', () => {
  let schema: OwnSchema | string;
  const children: Child[] = [];
  const haproxies: Haproxy[] = [];

  before(async () => {
    schema = noHaproxy() || (await ownSchema('plant_store_rolling'));
  });
  after(async () => {
    // Every process this file started, by its PID, whatever happened.
    for (const child of children) child.kill();
    await Promise.all(haproxies.map((haproxy) => haproxy.stop()));
    if (typeof schema !== 'string') await schema.drop();
  });

  it(
    'fails no request of plain callers or the typed client through a rolling restart, with retries and without',
    { timeout: 50_000 },
    async (t) => {
      if (typeof schema === 'string') {
        t.skip(schema);
        return;
      }
      const own = schema;
      const instances: Instance[] = [];
      for (const name of ['a', 'b'] as const) {
        instances.push({ name, port: await freePort(), adminPort: await freePort() });
      }
      const start = async (instance: Instance): Promise<void> => {
        const env = cliEnv({
          PORT: String(instance.port),
          PLANT_STORE_ADMIN_PORT: String(instance.adminPort),
          PLANT_STORE_TOKENS: TOKEN,
          DATABASE_URL: own.url,
          PLANT_STORE_DRAIN_MS: String(DRAIN_MS),
          PLANT_STORE_LOG: 'json,warn',
        });
        // Coverage written at exit would slow each restart; the other CLI tests cover main.ts.
        delete env.NODE_V8_COVERAGE;
        const child = spawnChild(
          process.execPath,
          ['--import', 'tsx', 'lib/cli/main.ts'],
          env,
          ROOT,
        );
        children.push(child);
        instance.child = child;
        await child.line(READY, `instance ${instance.name} to listen`, 20_000);
      };
      // One after the other: the first creates the table.
      for (const instance of instances) await start(instance);

      const documented = readFileSync(join(ROOT, 'examples/haproxy.cfg'), 'utf8');
      const balancers: Balancer[] = [];
      for (const [name, plain] of [
        ['HAProxy with retries 3 and option redispatch', false],
        ['HAProxy without retries or redispatch', true],
      ] as const) {
        const ports = { api: await freePort(), stats: await freePort() };
        const haproxy = await startHaproxy(
          configFor(documented, ports, instances, plain),
          `http://127.0.0.1:${ports.stats}/stats`,
          children,
        );
        haproxies.push(haproxy);
        balancers.push({
          name,
          url: `http://127.0.0.1:${ports.api}`,
          haproxy,
          tally: {
            sent: 0,
            failed: 0,
            failures: [],
            answered: new Map(),
            clientCreates: 0,
            clientFailures: [],
          },
        });
      }
      const untilSeen = (instance: Instance, status: 'UP' | 'DOWN'): Promise<true> =>
        pollUntil(
          async () => {
            const seen = await Promise.all(
              balancers.map(({ haproxy }) => haproxy.statuses('plant_store')),
            );
            return seen.every((servers) => servers.get(instance.name) === status) || undefined;
          },
          `both balancers to see ${instance.name} ${status}`,
          10_000,
          50,
        );
      for (const instance of instances) await untilSeen(instance, 'UP');

      // The load: every loop ends after its request in flight once `going` turns false, and at
      // once when `cut` aborts, as the finally below makes sure of whatever happens.
      let going = true;
      const cut = new AbortController();
      let nextId = 0;
      const agents: Agent[] = [];
      const plainCallers = async ({ url, tally }: Balancer): Promise<void> => {
        const agent = new Agent({ keepAlive: true, maxSockets: CALLERS });
        agents.push(agent);
        await Promise.all(
          Array.from({ length: CALLERS }, async () => {
            while (going) {
              const id = String(++nextId);
              const name = `plant ${id}`;
              tally.sent++;
              let failure: string;
              try {
                const { status, text } = await post(
                  agent,
                  url,
                  `{"id": ${id}, "name": "${name}"}`,
                  cut.signal,
                );
                if (status === 200 && text === JSON.stringify({ name })) {
                  tally.answered.set(id, name);
                  continue;
                }
                failure = `${status} ${text.slice(0, 100)}`;
              } catch (error) {
                if (cut.signal.aborted) return;
                failure = `${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`;
              }
              tally.failed++;
              if (tally.failures.length < 10) tally.failures.push(failure);
            }
          }),
        );
      };
      const typedClients = async ({ url, tally }: Balancer): Promise<void> => {
        const client = createPlantClient({ baseUrl: url, token: TOKEN });
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (going) {
              const id = String(++nextId);
              const name = `plant ${id}`;
              tally.clientCreates++;
              try {
                await client.createPlant({ id, name }, { signal: cut.signal });
                tally.answered.set(id, name);
              } catch (error) {
                if (cut.signal.aborted) return;
                if (tally.clientFailures.length < 10) {
                  tally.clientFailures.push(
                    `${(error as Error).name}: ${(error as Error).message}`,
                  );
                }
              }
            }
          }),
        );
      };
      const load = Promise.all(
        balancers.flatMap((balancer) => [plainCallers(balancer), typedClients(balancer)]),
      );
      try {
        await delay(STEADY_MS);
        for (const instance of instances) {
          const child = instance.child as Child;
          child.process.kill('SIGTERM');
          assert.equal(
            await withDeadline(child.exited, `${instance.name} to exit`, DRAIN_MS + 10_000),
            0,
            `${instance.name}'s exit code; stderr: ${child.stderr()}`,
          );
          await untilSeen(instance, 'DOWN');
          await start(instance);
          await untilSeen(instance, 'UP');
        }
        await delay(STEADY_MS);
      } catch (error) {
        cut.abort();
        throw error;
      } finally {
        going = false;
        await withDeadline(load, 'the load to stop', 15_000).finally(() => {
          cut.abort();
          for (const agent of agents) agent.destroy();
        });
      }

      // Both balancers' outcomes in one assertion, so a failure shows what each one saw.
      const outcome = ({ tally }: Balancer) => ({
        failed: tally.failed,
        failures: tally.failures,
        clientFailures: tally.clientFailures,
      });
      assert.deepEqual(
        balancers.map(outcome),
        balancers.map(() => ({ failed: 0, failures: [], clientFailures: [] })),
        balancers
          .map(
            ({ name, tally }) => `${name}: ${tally.failed} of ${tally.sent} plain requests failed`,
          )
          .join('; '),
      );
      for (const { name, tally } of balancers) {
        assert.ok(tally.sent > 1000, `only ${tally.sent} plain requests behind ${name}`);
        assert.ok(tally.clientCreates > 10, `only ${tally.clientCreates} creates behind ${name}`);
      }
      const { rows } = await own.admin.query<{ id: string; name: string }>(
        `SELECT id::text AS id, name FROM "${own.name}".plants`,
      );
      const stored = new Map(rows.map(({ id, name }) => [id, name]));
      for (const { name, tally } of balancers) {
        const lost = [...tally.answered].filter(([id, plant]) => stored.get(id) !== plant);
        assert.deepEqual(lost.slice(0, 10), [], `${lost.length} answered but not stored (${name})`);
      }
    },
  );
});
