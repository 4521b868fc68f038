/**
 * Step 8 of the behaviour table, the deadline: past `timeoutMs` the client gets a `503`, the
 * repository's signal fires and `onError` learns which collaborator the create waited on, each
 * create on its own clock; a client that goes away aborts it too, and is not reported.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { PlantRepository, PlantStore } from '../../lib/index.ts';
import { never, plantRequest, TOKEN } from '../support/web-fakes.ts';
import { defineCases, HOLDS_STREAM, json, USES_SIGNAL } from './context.ts';

/** The cases of step 8's deadline. */
export const deadlineCases = defineCases('handleCreatePlant: 8. store, the deadline', (it) => {
  it('answers 503 at the deadline, aborts the repository signal, and keeps serving others', async (t) => {
    let seen: AbortSignal | undefined;
    const memory = t.lib.createMemoryRepository();
    const repository: PlantRepository = {
      create(plant, context) {
        if (plant.id === 1n) {
          seen = context.signal;
          return never();
        }
        return memory.create(plant, context);
      },
    };
    const { store, onError } = t.testStore({ repository, timeoutMs: 100 });
    const started = Date.now();
    const hung = t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'hung' })));
    const other = await t.send(store.handleCreatePlant, plantRequest(json({ id: 2, name: 'ok' })));
    assert.equal(other.status, 200, 'another request is served while one hangs');
    const response = await hung;
    assert.equal(response.status, 503);
    assert.deepEqual(response.body, {
      error: 503,
      message: 'the request timed out; retrying it is safe',
    });
    assert.ok(Date.now() - started >= 90, 'not before the deadline');
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof t.lib.PlantApiError);
    assert.equal(seen?.reason.code, 'ERR_TIMEOUT');
    assert.equal(onError.calls.length, 1, 'the deadline is reported once');
  });

  it('gives each create its own deadline, counted from its own start', async (t) => {
    const repository: PlantRepository = {
      create: (plant) => (plant.name === 'hang' ? never() : { created: true }),
    };
    const { store } = t.testStore({ repository, timeoutMs: 150 });
    const answered = (id: number, name: string) => {
      const started = Date.now();
      return t
        .send(store.handleCreatePlant, plantRequest(json({ id, name })))
        .then((response) => ({ status: response.status, after: Date.now() - started }));
    };
    const first = answered(1, 'hang');
    await new Promise((resolve) => setTimeout(resolve, 60));
    // One create starts and finishes between the two hung ones: the deadlines on either side
    // of it must still fire.
    const quick = await answered(2, 'quick');
    const second = answered(3, 'hang');
    const [one, two] = await Promise.all([first, second]);
    assert.deepEqual(quick.status, 200);
    assert.equal(one.status, 503);
    assert.equal(two.status, 503);
    for (const { after } of [one, two]) {
      assert.ok(after >= 140, `answered ${after} ms after its start: before its deadline`);
      assert.ok(after < 1000, `answered ${after} ms after its start: long past its deadline`);
    }
  });

  it('keeps the deadline of a create started while another one expires', async (t) => {
    let retried: Promise<number> | undefined;
    let retriedAt = 0;
    let store: PlantStore | undefined;
    const repository: PlantRepository = {
      create(plant, context) {
        // The first create's repository retries at once when its signal fires: the retry
        // starts inside the deadline's own expiry, and must still get its own full deadline.
        if (plant.name === 'first') {
          context.signal.addEventListener('abort', () => {
            const again = plantRequest(json({ id: 2, name: 'retry' }));
            retriedAt = Date.now();
            retried = t.send((store as PlantStore).handleCreatePlant, again).then((r) => r.status);
          });
        }
        return never();
      },
    };
    ({ store } = t.testStore({ repository, timeoutMs: 60 }));
    const first = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'first' })),
    );
    assert.equal(first.status, 503);
    assert.equal(await retried, 503);
    // Timed from the retry's start: over a transport the first answer may arrive late.
    assert.ok(Date.now() - retriedAt >= 50, 'the retry was answered before its own deadline');
  });

  it('answers 503 when the verifier hangs past the deadline', async (t) => {
    const { store, repository } = t.testStore({ verifier: { verify: never }, timeoutMs: 50 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    assert.equal(repository.create.calls.length, 0);
  });

  it(
    'aborts the repository signal when the client goes away, without reporting an error',
    async (t) => {
      const client = new AbortController();
      let seen: AbortSignal | undefined;
      const repository: PlantRepository = {
        create(_plant, context) {
          seen = context.signal;
          client.abort();
          return new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(context.signal.reason)),
          );
        },
      };
      const { store, onError } = t.testStore({ repository });
      const response = await t.deliver(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: client.signal }),
      );
      assert.equal(seen?.aborted, true);
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it(
    'answers 503, with the signal aborted, when a repository asks after a client already gone',
    async (t) => {
      // The client is looked at when a collaborator asks for the signal (or after a wait): a
      // request's signal costs Bun and Deno more than a create, so a synchronous create of a
      // client already gone may still land, harmlessly (its retry is a replay).
      let seen: AbortSignal | undefined;
      const { store, onError } = t.testStore({
        repository: {
          create(_plant, context) {
            seen = context.signal;
            return { created: true };
          },
        },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: AbortSignal.abort() }),
      );
      assert.equal(response.status, 503);
      assert.equal(seen?.aborted, true);
      await new Promise((resolve) => setTimeout(resolve, 20)); // let any late work surface
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it('does not call the repository after the deadline passed during a slow verify', async (t) => {
    const { store, repository } = t.testStore({
      timeoutMs: 30,
      verifier: {
        verify: () => new Promise((resolve) => setTimeout(() => resolve({ valid: true }), 80)),
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(repository.create.calls.length, 0);
  });

  it('reports to onError the repository a create waited on when its deadline passed', async (t) => {
    const { store, onError } = t.testStore({ repository: { create: never }, timeoutMs: 50 });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': 'req-7' }),
    );
    assert.equal(response.status, 503);
    assert.equal(onError.calls.length, 1);
    const [error, context] = onError.calls[0] ?? [];
    assert.ok(error instanceof t.lib.PlantApiError);
    assert.equal(error.code, 'ERR_REPOSITORY_TIMEOUT');
    assert.equal(error.message, 'the repository did not answer in time');
    assert.ok(typeof (context as { requestId?: unknown })?.requestId === 'string');
  });

  it('reports to onError the verifier a create waited on when its deadline passed', async (t) => {
    const { store, repository, onError } = t.testStore({
      verifier: { verify: never },
      timeoutMs: 50,
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 503);
    assert.equal(repository.create.calls.length, 0);
    assert.equal(onError.calls.length, 1);
    const error = onError.calls[0]?.[0];
    assert.ok(error instanceof t.lib.PlantApiError);
    assert.equal(error.code, 'ERR_VERIFIER_TIMEOUT');
    assert.equal(error.message, 'the verifier did not answer in time');
  });

  it('still answers 503 at the deadline when onError throws or rejects', async (t) => {
    for (const onError of [
      () => {
        throw new Error('logger broken');
      },
      () => Promise.reject(new Error('logger broken')),
    ]) {
      const store = t.lib.createPlantStore({
        verifier: t.lib.createStaticTokenVerifier([TOKEN]),
        repository: { create: never },
        timeoutMs: 30,
        onError,
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 503);
    }
  });

  it(
    'does not report a create whose client left before its deadline passed',
    async (t) => {
      const client = new AbortController();
      const { store, onError } = t.testStore({
        repository: {
          create() {
            client.abort();
            return never();
          },
        },
        timeoutMs: 50,
      });
      const response = await t.deliver(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), {}, { signal: client.signal }),
      );
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    USES_SIGNAL,
  );

  it(
    'does not report a create whose client was still sending the body when its deadline passed',
    async (t) => {
      const { store, onError } = t.testStore({ timeoutMs: 50 });
      const body = new ReadableStream<Uint8Array>({ start() {} });
      const response = await t.send(store.handleCreatePlant, plantRequest(body));
      assert.equal(response.status, 503);
      assert.equal(onError.calls.length, 0);
    },
    HOLDS_STREAM,
  );
});
