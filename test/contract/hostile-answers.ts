/**
 * Collaborator answers that fight back: getters that throw, `Proxy` objects, thenables whose
 * `then` throws or is a throwing getter, errors that cannot be inspected. Each is the host's
 * fault, never the client's and never the host's crash: `500`, reported to `onError` once, on
 * every transport. An ORM row with lazy getters or a proxy-wrapped verdict is how these arrive.
 *
 * @module
 */

// The thenables below are what the cases hand the store.
/* oxlint-disable unicorn/no-thenable */

import assert from 'node:assert/strict';
import type { CreatePlantStoreOptions } from '../../lib/index.ts';
import { plantRequest } from '../support/web-fakes.ts';
import { type CaseContext, defineCases, json, within } from './context.ts';

const boom = () => {
  throw new Error('hostile answer');
};

/** An object any property read, `in` or prototype look-up of which throws. */
const hostileProxy = () =>
  new Proxy({}, { get: boom, has: boom, getPrototypeOf: boom, ownKeys: boom });

/** Hostile values, each as itself and as the value a promise resolves to. */
const HOSTILE_VERDICTS: ReadonlyArray<[string, () => unknown]> = [
  [
    'a verdict whose valid getter throws',
    () => ({
      get valid() {
        return boom();
      },
    }),
  ],
  ['a Proxy verdict', hostileProxy],
  [
    'a verdict whose principal getter throws',
    () => ({
      valid: true,
      get principal() {
        return boom();
      },
    }),
  ],
  [
    'a refusal whose reason getter throws',
    () => ({
      valid: false,
      get reason() {
        return boom();
      },
    }),
  ],
  ['a thenable whose then throws', () => ({ then: boom })],
  [
    'a thenable whose then is a getter that throws',
    () => ({
      get then() {
        return boom();
      },
    }),
  ],
];

const HOSTILE_OUTCOMES: ReadonlyArray<[string, () => unknown]> = [
  [
    'an outcome whose created getter throws',
    () => ({
      get created() {
        return boom();
      },
    }),
  ],
  [
    'an outcome whose existing getter throws',
    () => ({
      created: false,
      get existing() {
        return boom();
      },
    }),
  ],
  [
    'an outcome whose stored name getter throws',
    () => ({
      created: false,
      existing: {
        get name() {
          return boom();
        },
      },
    }),
  ],
  ['a Proxy outcome', hostileProxy],
  ['a thenable whose then throws', () => ({ then: boom })],
  [
    'a thenable whose then is a getter that throws',
    () => ({
      get then() {
        return boom();
      },
    }),
  ],
];

/** Sends one create to a store with `options`, through `fetch` and `handleCreatePlant`. */
async function expectFault(t: CaseContext, options: () => Partial<CreatePlantStoreOptions>) {
  for (const front of ['fetch', 'handleCreatePlant'] as const) {
    const { store, onError } = t.testStore(options());
    const response = await within(
      2_000,
      t.send(store[front], plantRequest(json({ id: 1, name: 'Monstera' }))),
      `${front} answered`,
    );
    assert.equal(response.status, 500, front);
    assert.deepEqual(response.body, { error: 500, message: 'internal error' });
    // A late second report would come after the answer: give it a turn to show itself.
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(onError.calls.length, 1, `${front}: onError heard the fault once`);
  }
}

/** The cases of collaborators whose answers throw when they are looked at. */
export const hostileAnswerCases = defineCases(
  'handleCreatePlant: hostile collaborator answers',
  (it) => {
    for (const [name, answer] of HOSTILE_VERDICTS) {
      it(`answers 500 and reports once when the verifier answers ${name}`, (t) =>
        expectFault(t, () => ({ verifier: { verify: () => answer() as never } })));
      it(`answers 500 and reports once when the verifier resolves to ${name}`, (t) =>
        expectFault(t, () => ({ verifier: { verify: async () => answer() as never } })));
    }
    for (const [name, answer] of HOSTILE_OUTCOMES) {
      it(`answers 500 and reports once when the repository answers ${name}`, (t) =>
        expectFault(t, () => ({ repository: { create: () => answer() as never } })));
      it(`answers 500 and reports once when the repository resolves to ${name}`, (t) =>
        expectFault(t, () => ({ repository: { create: async () => answer() as never } })));
    }

    it('answers 500 and reports once when a collaborator throws or rejects with a Proxy', async (t) => {
      await expectFault(t, () => ({
        verifier: {
          verify: () => {
            throw hostileProxy();
          },
        },
      }));
      await expectFault(t, () => ({ verifier: { verify: () => Promise.reject(hostileProxy()) } }));
      await expectFault(t, () => ({
        repository: {
          create: () => {
            throw hostileProxy();
          },
        },
      }));
      await expectFault(t, () => ({
        repository: { create: () => Promise.reject(hostileProxy()) },
      }));
    });

    it('answers from the first settlement when a thenable settles twice', async (t) => {
      const twice = {
        then(resolve: (value: unknown) => void, reject: (error: unknown) => void) {
          resolve({ created: true });
          resolve({ created: false, existing: { name: 'other' } });
          reject(new Error('late'));
        },
      };
      const { store, onError } = t.testStore({ repository: { create: () => twice as never } });
      const response = await t.send(store.fetch, plantRequest(json({ id: 1, name: 'Monstera' })));
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { name: 'Monstera' });
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(onError.calls.length, 0);
    });
  },
);
