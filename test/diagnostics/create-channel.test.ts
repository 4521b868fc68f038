/**
 * The store's diagnostics channels, as a host subscribes to them: every step of a create with
 * its outcome, over `store.fetch` and over the `node:http` adapter's fast path, and never a
 * token or a body in a message.
 *
 * @module
 */

import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import {
  CREATE_CHANNEL,
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
  type CreatePlantStoreOptions,
  PlantApiError,
  REPOSITORY_CHANNEL,
  VERIFIER_CHANNEL,
} from '../../lib/index.ts';
import { toNodeListener } from '../../lib/node.ts';
import { plantRequest, TOKEN } from '../support/fakes.ts';

const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;
const CHANNELS = {
  create: CREATE_CHANNEL,
  verifier: VERIFIER_CHANNEL,
  repository: REPOSITORY_CHANNEL,
} as const;
const BODY = '{"id":7,"name":"Monstera deliciosa","tag":"aroid"}';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** One event as a subscriber saw it: where, and a copy of the message at that moment. */
interface Seen {
  readonly event: string;
  readonly message: Record<string, unknown>;
  /** The message object itself, to check that every event of a create shares it. */
  readonly same: object;
}

let seen: Seen[] = [];
const unsubscribes: Array<() => void> = [];

/** Subscribes to every event of the three channels, recording each. */
function subscribeAll(): void {
  for (const [label, name] of Object.entries(CHANNELS)) {
    const channel = diagnostics.tracingChannel(name);
    const handlers = Object.fromEntries(
      EVENTS.map((event) => [
        event,
        (message: object) => {
          const { create, ...fields } = message as Record<string, unknown>;
          seen.push({ event: `${label}:${event}`, message: { ...fields }, same: message });
          void create;
        },
      ]),
    ) as unknown as Parameters<typeof channel.subscribe>[0];
    channel.subscribe(handlers);
    unsubscribes.push(() => channel.unsubscribe(handlers));
  }
}

function store(options: Partial<CreatePlantStoreOptions> = {}) {
  return createPlantStore({
    verifier: createStaticTokenVerifier([TOKEN]),
    onError: () => {},
    ...options,
  });
}

/** Every message seen so far, as text: the place to look for a token or a body. */
function allText(): string {
  return JSON.stringify(
    seen.map((entry) => entry.same),
    (_key, value: unknown) =>
      value instanceof Error ? { name: value.name, message: value.message } : value,
  );
}

function assertNoSecrets(): void {
  const text = allText();
  assert.ok(!text.includes(TOKEN), 'a message holds the token');
  assert.ok(!text.includes('Monstera'), 'a message holds the body');
}

const events = () => seen.map((entry) => entry.event);
const last = (event: string) => seen.findLast((entry) => entry.event === event)?.message;

describe('the plant-store:create diagnostics channels', () => {
  beforeEach(() => {
    seen = [];
    subscribeAll();
  });
  afterEach(() => {
    for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
  });

  it('tells every step of a create, with the request and outcome created, when a host subscribes', async () => {
    const response = await store().fetch(
      plantRequest(BODY, { 'x-request-id': 'req-1', traceparent: TRACEPARENT }),
    );
    assert.equal(response.status, 200);
    assert.deepEqual(events(), [
      'create:start',
      'verifier:start',
      'verifier:end',
      'verifier:asyncStart',
      'verifier:asyncEnd',
      // The body of a Request is read asynchronously: the store's call returns meanwhile.
      'create:end',
      'repository:start',
      'repository:end',
      'repository:asyncStart',
      'repository:asyncEnd',
      'create:asyncStart',
      'create:asyncEnd',
    ]);
    assert.deepEqual(seen[0]?.message, {
      requestId: 'req-1',
      method: 'POST',
      path: '/plants',
      route: '/plants',
      traceparent: TRACEPARENT,
      tracestate: undefined,
    });
    assert.deepEqual(last('create:asyncStart'), {
      requestId: 'req-1',
      method: 'POST',
      path: '/plants',
      route: '/plants',
      traceparent: TRACEPARENT,
      tracestate: undefined,
      status: 200,
      outcome: 'created',
    });
    assert.deepEqual(last('verifier:asyncStart'), { requestId: 'req-1', valid: true });
    assert.deepEqual(last('repository:asyncStart'), { requestId: 'req-1', outcome: 'created' });
    const creates = seen.filter((entry) => entry.event.startsWith('create:'));
    assert.ok(
      creates.every((entry) => entry.same === creates[0]?.same),
      'one message per create',
    );
    assertNoSecrets();
  });

  it('tells the outcomes replayed and conflict when the id is stored already', async () => {
    const plants = store({ repository: createMemoryRepository() });
    await plants.fetch(plantRequest(BODY));
    seen = [];
    assert.equal((await plants.fetch(plantRequest(BODY))).status, 200);
    assert.equal(last('create:asyncStart')?.outcome, 'replayed');
    assert.equal(last('repository:asyncStart')?.outcome, 'replayed');
    const changed = BODY.replace('aroid', 'vine');
    assert.equal((await plants.fetch(plantRequest(changed))).status, 409);
    assert.deepEqual(
      [last('create:asyncStart')?.status, last('create:asyncStart')?.outcome],
      [409, 'conflict'],
    );
    assert.equal(last('repository:asyncStart')?.outcome, 'conflict');
    assertNoSecrets();
  });

  it('tells a refused token with its reason, and onTokenRejected hears it, when the verifier says why', async () => {
    const onTokenRejected = mock.fn();
    const repository = { create: mock.fn(() => ({ created: true as const })) };
    const response = await store({ onTokenRejected, repository }).fetch(
      plantRequest(BODY, { authorization: 'Bearer not-the-token', 'x-request-id': 'r-401' }),
    );
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get('www-authenticate'),
      'Bearer realm="plant-store", error="invalid_token"',
    );
    assert.deepEqual(await response.json(), {
      error: 401,
      message: 'the bearer token is not valid',
    });
    assert.deepEqual(events(), [
      'create:start',
      'verifier:start',
      'verifier:end',
      'verifier:asyncStart',
      'verifier:asyncEnd',
      'create:asyncStart',
      'create:asyncEnd',
      'create:end',
    ]);
    assert.deepEqual(last('verifier:asyncStart'), {
      requestId: 'r-401',
      valid: false,
      reason: 'unknown_token',
    });
    assert.deepEqual(
      [
        last('create:asyncStart')?.status,
        last('create:asyncStart')?.outcome,
        last('create:asyncStart')?.reason,
      ],
      [401, 'ERR_INVALID_TOKEN', 'unknown_token'],
    );
    assert.deepEqual(
      onTokenRejected.mock.calls.map((call) => call.arguments),
      [['unknown_token', { requestId: 'r-401' }]],
    );
    assert.equal(repository.create.mock.callCount(), 0);
    assert.ok(!allText().includes('not-the-token'), 'a message holds the refused token');
  });

  it('tells the fault of a repository that rejects, with the outcome ERR_INTERNAL', async () => {
    const failure = new Error('the disk is on fire');
    const response = await store({
      repository: { create: async () => Promise.reject(failure) },
    }).fetch(plantRequest(BODY));
    assert.equal(response.status, 500);
    assert.deepEqual(events(), [
      'create:start',
      'verifier:start',
      'verifier:end',
      'verifier:asyncStart',
      'verifier:asyncEnd',
      'create:end',
      'repository:start',
      'repository:end',
      'repository:error',
      'repository:asyncStart',
      'repository:asyncEnd',
      'create:error',
      'create:asyncStart',
      'create:asyncEnd',
    ]);
    assert.equal(last('repository:error')?.error, failure);
    assert.equal(last('create:error')?.error, failure);
    assert.deepEqual(
      [last('create:asyncStart')?.status, last('create:asyncStart')?.outcome],
      [500, 'ERR_INTERNAL'],
    );
    assertNoSecrets();
  });

  it('tells a create that ends at its deadline, and which collaborator it waited on', async () => {
    const response = await store({
      timeoutMs: 30,
      repository: { create: () => new Promise<never>(() => {}) },
    }).fetch(plantRequest(BODY));
    assert.equal(response.status, 503);
    const error = last('repository:error')?.error;
    // The error names what was waited on; the client still gets the contract's 503.
    assert.ok(error instanceof PlantApiError && error.code === 'ERR_REPOSITORY_TIMEOUT');
    assert.ok(events().includes('repository:asyncEnd'), 'the repository call is closed');
    assert.equal(last('create:error')?.error, error);
    assert.deepEqual(
      [last('create:asyncStart')?.status, last('create:asyncStart')?.outcome],
      [503, 'ERR_TIMEOUT'],
    );
    assert.equal(events().filter((event) => event === 'create:asyncEnd').length, 1);
    assertNoSecrets();
  });

  it('tells a verifier that answers later, and a refusal before the verifier, in order', async () => {
    const plants = store({
      verifier: { verify: async () => ({ valid: true }) },
    });
    assert.equal((await plants.fetch(plantRequest(BODY))).status, 200);
    assert.deepEqual(events().slice(0, 4), [
      'create:start',
      'verifier:start',
      'verifier:end',
      'create:end',
    ]);
    assert.equal(events().at(-1), 'create:asyncEnd');
    seen = [];
    const missing = await plants.fetch(plantRequest(BODY, { authorization: '' }));
    assert.equal(missing.status, 401);
    assert.deepEqual(events(), [
      'create:start',
      'create:asyncStart',
      'create:asyncEnd',
      'create:end',
    ]);
    assert.equal(last('create:asyncStart')?.outcome, 'ERR_MISSING_TOKEN');
  });

  it('tells the path and request id the node:http adapter read from the socket', async (t) => {
    const server = createServer(toNodeListener(store().fetch)).listen(0, '127.0.0.1');
    t.after(() => server.close());
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/plants?via=socket`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-request-id': 'over-http',
        traceparent: TRACEPARENT,
        tracestate: 'vendor=1',
      },
      body: BODY,
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    assert.deepEqual(last('create:asyncStart'), {
      requestId: 'over-http',
      method: 'POST',
      path: '/plants',
      route: '/plants',
      traceparent: TRACEPARENT,
      tracestate: 'vendor=1',
      status: 200,
      outcome: 'created',
    });
    assertNoSecrets();
  });

  it('builds no message and publishes nothing when nobody subscribes', async () => {
    for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
    const requestId = mock.fn(() => 'unused');
    const request = plantRequest(BODY);
    const plants = store();
    // The store reads the request id of a create only for its messages and reports.
    Object.defineProperty(request.headers, 'get', {
      value: new Proxy(Headers.prototype.get, {
        apply(target, self, args: [string]) {
          if (args[0] === 'x-request-id' || args[0] === 'traceparent') requestId();
          return Reflect.apply(target, self, args);
        },
      }),
    });
    assert.equal((await plants.fetch(request)).status, 200);
    assert.equal(requestId.mock.callCount(), 0);
    assert.deepEqual(seen, []);
  });
});

describe('createPlantStore({ onTokenRejected })', () => {
  it('hands a throw or a rejection of onTokenRejected to onError, never to the host, when it fails', async () => {
    const onError = mock.fn();
    for (const onTokenRejected of [
      () => {
        throw new Error('broken hook');
      },
      async () => Promise.reject(new Error('broken hook')),
    ]) {
      const response = await store({ onTokenRejected, onError }).fetch(
        plantRequest(BODY, { authorization: 'Bearer wrong', 'x-request-id': 'r' }),
      );
      assert.equal(response.status, 401);
    }
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      onError.mock.calls.map((call) => [(call.arguments[0] as Error).message, call.arguments[1]]),
      [
        ['broken hook', { requestId: 'r' }],
        ['broken hook', { requestId: 'r' }],
      ],
    );
  });

  it('hears no reason when the verifier gave none, and nothing for a missing header', async () => {
    const onTokenRejected = mock.fn();
    const plants = store({ onTokenRejected, verifier: { verify: () => ({ valid: false }) } });
    assert.equal((await plants.fetch(plantRequest(BODY))).status, 401);
    assert.equal((await plants.fetch(plantRequest(BODY, { authorization: '' }))).status, 401);
    assert.deepEqual(
      onTokenRejected.mock.calls.map((call) => call.arguments),
      [[undefined, { requestId: undefined }]],
    );
  });

  it('throws a TypeError at construction when onTokenRejected is not a function', () => {
    assert.throws(() => store({ onTokenRejected: 'log' as never }), {
      name: 'TypeError',
      message: 'onTokenRejected must be a function',
    });
  });
});
