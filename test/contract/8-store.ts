/**
 * Step 8 of the behaviour table, the store: new, replay and conflict, the repository's and the
 * verifier's failures reported to `onError`, and concurrent creates (the deadline is in
 * `8-deadline.ts`).
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { ErrorContext, PlantRepository } from '../../lib/index.ts';
import { plantRequest, TOKEN } from '../support/web-fakes.ts';
import { defineCases, json } from './context.ts';

/** The cases of step 8, the store, but for the deadline. */
export const storeCases = defineCases('handleCreatePlant: 8. store', (it) => {
  it('answers 200 with exactly name and tag, and hands the repository a bigint id', async (t) => {
    const { store, repository } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 42, name: 'Monstera', tag: 'aroid' })),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.body, { name: 'Monstera', tag: 'aroid' });
    const [plant, context] = repository.create.calls[0] ?? [];
    assert.deepEqual(plant, { id: 42n, name: 'Monstera', tag: 'aroid' });
    assert.ok(context?.signal instanceof AbortSignal);
  });

  it('removes the listener it put on the request signal once the create is over', async (t) => {
    // A runtime may hand back the very signal given to new Request (Bun does), and a host may
    // share one signal between requests: a listener left on it would pile up.
    const repository: PlantRepository = {
      create: async (_plant, context) => {
        context.signal.throwIfAborted();
        return { created: true };
      },
    };
    const { store } = t.testStore({ repository });
    const request = plantRequest(json({ id: 1, name: 'a' }));
    const { signal } = request;
    let added = 0;
    let listening = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListener, options?: unknown) => {
      if (type === 'abort') {
        added++;
        listening++;
      }
      add(type, listener, options as AddEventListenerOptions);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListener, options?: unknown) => {
      if (type === 'abort') listening--;
      remove(type, listener, options as EventListenerOptions);
    }) as typeof signal.removeEventListener;
    const response = await store.handleCreatePlant(request);
    assert.equal(response.status, 200);
    assert.ok(added >= 1, 'the store listened to the request signal');
    assert.equal(listening, 0);
  });

  it('omits tag from the response when none was given', async (t) => {
    const { store } = t.testStore();
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.deepEqual(response.body, { name: 'a' });
  });

  it('answers 200 again and changes nothing when the same plant is sent again', async (t) => {
    const memory = t.lib.createMemoryRepository();
    const { store } = t.testStore({ repository: memory });
    const body = json({ id: 7, name: 'Fern', tag: 'fern' });
    const first = await t.send(store.handleCreatePlant, plantRequest(body));
    const again = await t.send(store.handleCreatePlant, plantRequest(body));
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { name: 'Fern', tag: 'fern' });
    const outcome = await memory.create(
      { id: 7n, name: 'probe' },
      { signal: AbortSignal.timeout(1000) },
    );
    assert.deepEqual(outcome, { created: false, existing: { name: 'Fern', tag: 'fern' } });
  });

  it('treats a stored null tag as no tag when replaying', async (t) => {
    const repository: PlantRepository = {
      create: async () => ({ created: false, existing: { name: 'a', tag: null as never } }),
    };
    const { store } = t.testStore({ repository });
    const replay = await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    assert.equal(replay.status, 200);
    const other = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a', tag: '' })),
    );
    assert.equal(other.status, 409);
  });

  for (const [what, second] of [
    ['name', { id: 7, name: 'Other', tag: 'fern' }],
    ['tag', { id: 7, name: 'Fern', tag: 'other' }],
    ['absent tag', { id: 7, name: 'Fern' }],
    ['empty tag', { id: 7, name: 'Fern', tag: '' }],
  ] as const) {
    it(`answers 409 and keeps the stored plant when the ${what} differs`, async (t) => {
      const memory = t.lib.createMemoryRepository();
      const { store } = t.testStore({ repository: memory });
      await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })),
      );
      const response = await t.send(store.handleCreatePlant, plantRequest(json(second)));
      assert.equal(response.status, 409);
      assert.deepEqual(response.body, {
        error: 409,
        message: 'a different plant is already stored under this id',
      });
      const replay = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 7, name: 'Fern', tag: 'fern' })),
      );
      assert.equal(replay.status, 200, 'the first plant is still stored');
    });
  }

  it('answers 500 "internal error" and reports the detail when the repository throws', async (t) => {
    const secret = new Error('relation "plants" does not exist at pg-pool 10.0.0.7');
    for (const create of [
      () => Promise.reject(secret),
      () => {
        throw secret;
      },
    ]) {
      const { store, onError } = t.testStore({ repository: { create } });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 500);
      assert.deepEqual(response.body, { error: 500, message: 'internal error' });
      assert.equal(onError.calls.length, 1);
      assert.equal(onError.calls[0]?.[0], secret);
    }
  });

  it('answers 500 and reports ERR_MALFORMED_OUTCOME when an outcome is not of the documented shape', async (t) => {
    for (const outcome of [
      undefined,
      true,
      { created: 'yes' },
      { created: false },
      { created: false, existing: null },
      { created: false, existing: { name: 7 } },
      { created: false, existing: { name: 'a', tag: 7 } },
    ]) {
      for (const create of [() => outcome as never, async () => outcome as never]) {
        const { store, onError } = t.testStore({ repository: { create } });
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(json({ id: 1, name: 'a' })),
        );
        assert.equal(response.status, 500, json(outcome));
        assert.deepEqual(response.body, { error: 500, message: 'internal error' });
        assert.equal(onError.calls.length, 1);
        const error = onError.calls[0]?.[0] as { code?: string; message?: string };
        assert.equal(error.code, 'ERR_MALFORMED_OUTCOME', json(outcome));
        assert.match(String(error.message), /PlantRepository\.create/);
        assert.match(String(error.message), /\{ created: true \} or \{ created: false, existing/);
      }
    }
  });

  it('does not let an async onError that rejects become an unhandled rejection', async (t) => {
    let heard = 0;
    const store = t.lib.createPlantStore({
      verifier: t.lib.createStaticTokenVerifier([TOKEN]),
      repository: { create: () => Promise.reject(new Error('down')) },
      // Type-checks: an async function is a function returning void to TypeScript.
      onError: async () => {
        heard += 1;
        throw new Error('logger broken');
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 500);
    assert.equal(heard, 1);
    // An unhandled rejection would surface on the next turns; give it the chance to.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('answers 507 to a new id once the memory store holds maxPlants, and replays and conflicts as before', async (t) => {
    const { store, onError } = t.testStore({
      repository: t.lib.createMemoryRepository({ maxPlants: 2 }),
    });
    const send = (body: unknown) => t.send(store.handleCreatePlant, plantRequest(json(body)));
    assert.equal((await send({ id: 1, name: 'a' })).status, 200);
    assert.equal((await send({ id: 2, name: 'b' })).status, 200);
    const full = await send({ id: 3, name: 'c' });
    assert.equal(full.status, 507);
    assert.deepEqual(full.body, { error: 507, message: 'the store is full' });
    assert.equal((await send({ id: 1, name: 'a' })).status, 200, 'a replay');
    assert.equal((await send({ id: 2, name: 'x' })).status, 409, 'a conflict');
    assert.equal(onError.calls.length, 0, 'a full store is no fault');
  });

  it('answers 503 with Retry-After and reports the error when the repository says the store is unavailable', async (t) => {
    const unavailable = new t.lib.PlantApiError('ERR_STORE_UNAVAILABLE');
    for (const create of [
      () => Promise.reject(unavailable),
      () => {
        throw unavailable;
      },
    ]) {
      const { store, onError } = t.testStore({ repository: { create } });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' })),
      );
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '1');
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(response.body, {
        error: 503,
        message: 'the store is unavailable for now; retrying the request is safe',
      });
      assert.equal(onError.calls.length, 1);
      assert.equal(onError.calls[0]?.[0], unavailable);
    }
  });

  it('reports an error once when the repository fails several creates with that one error', async (t) => {
    // A batch's failed statement fails each of its creates with one error: one fault, not many.
    const shared = new Error('the batch statement failed');
    const unavailable = new t.lib.PlantApiError('ERR_STORE_UNAVAILABLE');
    let calls = 0;
    const { store, onError } = t.testStore({
      repository: {
        create: () => Promise.reject(++calls <= 3 ? shared : unavailable),
      },
    });
    const statuses = await Promise.all(
      [1, 2, 3, 4, 5].map(async (id) => {
        const response = await t.send(
          store.handleCreatePlant,
          plantRequest(json({ id, name: 'a' })),
        );
        return response.status;
      }),
    );
    assert.deepEqual(statuses.sort(), [500, 500, 500, 503, 503]);
    const heard = onError.calls.map(([error]) => error);
    assert.equal(heard.length, 2);
    assert.ok(heard.includes(shared) && heard.includes(unavailable));
  });

  it('refuses a maxPlants that is not a positive integer, and an unknown option', (t) => {
    for (const options of [
      { maxPlants: 0 },
      { maxPlants: 1.5 },
      { maxPlants: -1 },
      { maxPlant: 5 },
    ]) {
      assert.throws(
        () => t.lib.createMemoryRepository(options as never),
        { name: 'TypeError', message: /^createMemoryRepository: / },
        json(options),
      );
    }
  });

  it("tells onError the request's X-Request-Id", async (t) => {
    const { store, onError } = t.testStore({
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': 'req-42' }),
    );
    assert.equal(response.status, 500);
    assert.equal((onError.calls[0]?.[1] as ErrorContext | undefined)?.requestId, 'req-42');
  });

  it('does not hand onError an X-Request-Id that serve would not keep', async (t) => {
    for (const sent of ['r'.repeat(201), 'req 42', 'req\t42']) {
      const { store, onError } = t.testStore({
        repository: {
          create() {
            throw new Error('disk on fire');
          },
        },
      });
      const response = await t.send(
        store.handleCreatePlant,
        plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': sent }),
      );
      assert.equal(response.status, 500);
      // Called directly, no id; behind serve, the one it made instead.
      const seen = (onError.calls[0]?.[1] as { requestId?: string } | undefined)?.requestId;
      assert.notEqual(seen, sent);
      if (seen !== undefined) assert.match(seen, /^[\x21-\x7e]{1,200}$/);
    }
  });

  it('hands onError an X-Request-Id of 200 visible characters as it is', async (t) => {
    const sent = `${'r'.repeat(199)}~`;
    const { store, onError } = t.testStore({
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' }), { 'x-request-id': sent }),
    );
    assert.equal((onError.calls[0]?.[1] as ErrorContext | undefined)?.requestId, sent);
  });

  it('still answers 500 when onError itself throws', async (t) => {
    const store = t.lib.createPlantStore({
      verifier: t.lib.createStaticTokenVerifier([TOKEN]),
      repository: { create: () => Promise.reject(new Error('down')) },
      onError: () => {
        throw new Error('logger broken');
      },
    });
    const response = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'a' })),
    );
    assert.equal(response.status, 500);
  });

  it('decides replay and conflict alike whether the repository answers at once or with a promise', async (t) => {
    const answersAtOnce = t.lib.createMemoryRepository();
    const backing = t.lib.createMemoryRepository();
    const answersLater: PlantRepository = {
      create: (plant, context) =>
        new Promise((resolve) => setTimeout(() => resolve(backing.create(plant, context)), 5)),
    };
    for (const repository of [answersAtOnce, answersLater]) {
      const { store } = t.testStore({ repository });
      const statuses = [];
      for (const plant of [
        { id: 1, name: 'Fern' },
        { id: 1, name: 'Fern' },
        { id: 1, name: 'Moss' },
      ]) {
        statuses.push((await t.send(store.handleCreatePlant, plantRequest(json(plant)))).status);
      }
      assert.deepEqual(statuses, [200, 200, 409]);
    }
  });

  it('stores exactly one content when many creates of one id race', async (t) => {
    const memory = t.lib.createMemoryRepository();
    const { store } = t.testStore({ repository: memory });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        t.send(store.handleCreatePlant, plantRequest(json({ id: 99, name: `plant-${i}` }))),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    assert.equal(winners.length, 1);
    assert.equal(responses.filter((response) => response.status === 409).length, 99);
    const outcome = await memory.create(
      { id: 99n, name: '?' },
      { signal: new AbortController().signal },
    );
    assert.equal(outcome.created, false);
    assert.deepEqual(
      outcome.created ? undefined : { name: outcome.existing.name },
      winners[0]?.body,
    );
  });

  it('answers 200 to every one of many identical concurrent creates', async (t) => {
    const { store } = t.testStore();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.send(store.handleCreatePlant, plantRequest(json({ id: 5, name: 'same' }))),
      ),
    );
    assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([200]));
  });

  it('does not route on the path: a host may mount it anywhere', async (t) => {
    const { store } = t.testStore();
    const request = new Request('http://localhost/api/v2/create-a-plant?x=1', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: json({ id: 1, name: 'a' }),
    });
    assert.equal((await t.send(store.handleCreatePlant, request)).status, 200);
  });
});
