/**
 * The admin listener's `/readyz` over a real socket: what it answers, and how often it asks the
 * dependencies however many probes arrive.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ReadinessCheck,
  type ReadinessResult,
  READY_CACHE_MS,
  startAdminServer,
} from '../../lib/cli/admin-server.ts';
import { delay, withDeadline } from '../support/node-helpers.ts';

/** A check that counts its looks and answers what `answer` says at the time. */
function countingCheck(name: string, answer: () => ReadinessResult) {
  let looks = 0;
  const check: ReadinessCheck = {
    name,
    ready: async () => {
      looks++;
      await delay(20);
      return answer();
    },
  };
  return { check, looks: () => looks };
}

/** Sources with no metrics, no saturation and nothing expected to report. */
const QUIET = {
  checks: [],
  stopping: () => false,
  metrics: () => '',
  saturation: () => undefined,
  report: (check: string, error: unknown) => {
    throw new Error(`unexpected report from ${check}: ${String(error)}`);
  },
};

async function probe(admin: string): Promise<{ status: number; body: unknown }> {
  const response = await withDeadline(fetch(`${admin}/readyz`), 'a /readyz probe');
  return { status: response.status, body: await response.json() };
}

describe('startAdminServer', () => {
  it('asks the dependencies once however many /readyz probes arrive within a second', async () => {
    // A probe flood ran one query each on the API's own pool and slowed every create.
    const storage = countingCheck('storage', () => ({ ok: true }));
    let stopping = false;
    const admin = await startAdminServer(
      { port: 0, host: '127.0.0.1' },
      { ...QUIET, checks: [storage.check], stopping: () => stopping },
    );
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => probe(admin.url)));
      for (const answer of answers) {
        assert.deepEqual(answer, {
          status: 200,
          body: { status: 'ready', checks: { shutdown: true, storage: true } },
        });
      }
      assert.equal(storage.looks(), 1);
      await probe(admin.url);
      assert.equal(storage.looks(), 1, 'a probe within the second reuses the look');
      // A stop signal is never cached: not ready at once.
      stopping = true;
      assert.equal((await probe(admin.url)).status, 503);
      assert.equal(storage.looks(), 1);
      await delay(READY_CACHE_MS + 50);
      stopping = false;
      await probe(admin.url);
      assert.equal(storage.looks(), 2, 'a look at most about a second old');
    } finally {
      await admin.close();
    }
  });

  it('answers 503 naming the failed checks, never their error text, which goes to the log', async () => {
    // The port needs no credentials: database and JWKS errors carried hostnames and addresses.
    const storage = countingCheck('storage', () => ({
      ok: false,
      error: new Error('connect ECONNREFUSED 10.1.2.3:5432'),
    }));
    const jwks: ReadinessCheck = {
      name: 'jwks',
      ready: async () => {
        throw new Error('getaddrinfo ENOTFOUND keys.internal.example');
      },
    };
    const reported: [string, string][] = [];
    const admin = await startAdminServer(
      { port: 0, host: '127.0.0.1' },
      {
        ...QUIET,
        checks: [storage.check, jwks],
        report: (check, error) => reported.push([check, (error as Error).message]),
      },
    );
    try {
      assert.deepEqual(await probe(admin.url), {
        status: 503,
        body: { status: 'not ready', checks: { shutdown: true, storage: false, jwks: false } },
      });
      assert.deepEqual(reported.sort(), [
        ['jwks', 'getaddrinfo ENOTFOUND keys.internal.example'],
        ['storage', 'connect ECONNREFUSED 10.1.2.3:5432'],
      ]);
    } finally {
      await admin.close();
    }
  });

  it("reports saturation beside the checks without changing /readyz's status", async () => {
    // A flood of connections must not pull every instance out of a load balancer at once.
    let saturation: Record<string, unknown> | undefined;
    let ok = true;
    const admin = await startAdminServer(
      { port: 0, host: '127.0.0.1' },
      {
        ...QUIET,
        checks: [{ name: 'storage', ready: async () => ({ ok }) }],
        saturation: () => saturation,
      },
    );
    try {
      saturation = { connections: { max: 20, refused: 3, lastRefusalAgeMs: 5 } };
      assert.deepEqual(await probe(admin.url), {
        status: 200,
        body: {
          status: 'ready',
          checks: { shutdown: true, storage: true },
          saturation: { connections: { max: 20, refused: 3, lastRefusalAgeMs: 5 } },
        },
      });
      saturation = undefined;
      assert.deepEqual((await probe(admin.url)).body, {
        status: 'ready',
        checks: { shutdown: true, storage: true },
      });
      await delay(READY_CACHE_MS + 50);
      ok = false;
      saturation = { connections: { max: 20, refused: 4, lastRefusalAgeMs: 0 } };
      assert.deepEqual(await probe(admin.url), {
        status: 503,
        body: {
          status: 'not ready',
          checks: { shutdown: true, storage: false },
          saturation: { connections: { max: 20, refused: 4, lastRefusalAgeMs: 0 } },
        },
      });
    } finally {
      await admin.close();
    }
  });
});
