/**
 * The diagnostics channels: a subscriber sees every step of a create and of a refused token,
 * with no token or body in what it is told.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { plantRequest, spy, TOKEN } from '../support/web-fakes.ts';
import { defineCases, json } from './context.ts';

/** The cases of the diagnostics channels. */
export const diagnosticsCases = defineCases('the diagnostics channels', (it) => {
  /** The part of `node:diagnostics_channel` the case uses, from the runtime, as the store gets it. */
  interface TracingChannel {
    subscribe(handlers: Record<string, (message: object) => void>): void;
    unsubscribe(handlers: Record<string, (message: object) => void>): void;
  }
  const diagnostics = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:diagnostics_channel') as
    { tracingChannel(name: string): TracingChannel } | undefined;

  it('tells a subscriber every step of a create and of a refused token, with no token or body', async (t) => {
    assert.ok(diagnostics, 'this runtime has node:diagnostics_channel');
    const seen: Array<[string, Record<string, unknown>]> = [];
    const stops = [
      ['create', t.lib.CREATE_CHANNEL],
      ['verifier', t.lib.VERIFIER_CHANNEL],
      ['repository', t.lib.REPOSITORY_CHANNEL],
    ].map(([label, name]) => {
      const channel = diagnostics.tracingChannel(name as string);
      const handlers = Object.fromEntries(
        ['start', 'end', 'asyncStart', 'asyncEnd', 'error'].map((event) => [
          event,
          (message: object) => {
            const { create: _create, ...fields } = message as Record<string, unknown>;
            seen.push([`${label}:${event}`, fields]);
          },
        ]),
      );
      channel.subscribe(handlers);
      return () => channel.unsubscribe(handlers);
    });
    try {
      const rejected = spy((_reason: unknown, _context: unknown) => {});
      const { store } = t.testStore({ onTokenRejected: rejected });
      const body = json({ id: 5, name: 'Begonia' });
      const created = await t.send(store.fetch, plantRequest(body, { 'x-request-id': 'dc-1' }));
      assert.equal(created.status, 200);
      const events = seen.map(([event]) => event);
      for (const step of ['create:start', 'verifier:asyncEnd', 'repository:asyncEnd']) {
        assert.ok(events.includes(step), `${step} in ${events.join(', ')}`);
      }
      const answered = seen.find(([event]) => event === 'create:asyncStart')?.[1];
      assert.deepEqual(
        [
          answered?.requestId,
          answered?.method,
          answered?.path,
          answered?.status,
          answered?.outcome,
        ],
        ['dc-1', 'POST', '/plants', 200, 'created'],
      );
      seen.length = 0;
      const refused = await t.send(
        store.fetch,
        plantRequest(body, { authorization: 'Bearer wrong-one', 'x-request-id': 'dc-2' }),
      );
      assert.equal(refused.status, 401);
      const refusal = seen.find(([event]) => event === 'create:asyncStart')?.[1];
      assert.deepEqual(
        [refusal?.status, refusal?.outcome, refusal?.reason],
        [401, 'ERR_INVALID_TOKEN', 'unknown_token'],
      );
      assert.deepEqual(
        rejected.calls.map(([reason, context]) => [
          reason,
          (context as { requestId?: string }).requestId,
        ]),
        [['unknown_token', 'dc-2']],
      );
      const text = JSON.stringify(seen);
      assert.ok(!text.includes(TOKEN) && !text.includes('wrong-one') && !text.includes('Begonia'));
    } finally {
      for (const stop of stops) stop();
    }
  });
});
