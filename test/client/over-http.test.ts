import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createPlantClient, PlantClientError } from '../../lib/client.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { serve } from '../../lib/node.ts';
import { cuttingProxy } from '../support/client-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';
import { mapRepository, TOKEN } from '../support/web-fakes.ts';

const TOP = 2n ** 63n - 1n;
const RETRY = { attempts: 4, baseDelayMs: 20, maxDelayMs: 200 };

describe('createPlant over real sockets', () => {
  const stops: Array<() => Promise<void>> = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  async function served(options: Partial<Parameters<typeof createPlantStore>[0]> = {}) {
    const map = mapRepository();
    const store = createPlantStore({
      repository: map.repository,
      verifier: createStaticTokenVerifier([TOKEN]),
      onError: () => {},
      ...options,
    });
    const server = await serve({
      fetch: store.fetch,
      port: 0,
      host: '127.0.0.1',
      onError: () => {},
    });
    stops.push(() => server.close());
    return { ...map, server };
  }

  it('stores the plant once and resolves to it when the connection is cut after the create ran', async () => {
    const { server, plants, calls } = await served();
    const proxy = await cuttingProxy(server.port, 1);
    stops.push(() => proxy.close());
    const client = createPlantClient({ baseUrl: proxy.url, token: TOKEN, retry: RETRY });
    const plant = await withDeadline(
      client.createPlant({ id: TOP, name: 'Monstera' }),
      'the create',
    );
    assert.deepEqual(plant, { name: 'Monstera' });
    assert.equal(proxy.cuts(), 1);
    assert.equal(calls(), 2, 'the retry was a replay');
    assert.deepEqual([...plants], [[TOP, { name: 'Monstera' }]]);
  });

  it('rejects with a network error after the last attempt when every connection is cut', async () => {
    const { server, plants } = await served();
    const proxy = await cuttingProxy(server.port, 10);
    stops.push(() => proxy.close());
    const client = createPlantClient({ baseUrl: proxy.url, token: TOKEN, retry: RETRY });
    const error = await withDeadline(
      client.createPlant({ id: TOP, name: 'Monstera' }).catch((e: unknown) => e),
      'the create',
    );
    assert.ok(error instanceof PlantClientError, String(error));
    assert.equal(error.code, 'ERR_NETWORK');
    assert.equal(proxy.cuts(), 4);
    assert.deepEqual([...plants], [[TOP, { name: 'Monstera' }]]);
  });

  it('retries a 503 from a create that outlived the deadline into exactly one stored plant', async () => {
    let release = () => {};
    const late = new Promise<void>((resolve) => {
      release = resolve;
    });
    const map = mapRepository(() => late);
    const store = createPlantStore({
      repository: map.repository,
      verifier: createStaticTokenVerifier([TOKEN]),
      timeoutMs: 50,
      onError: () => {},
    });
    const seen: number[] = [];
    const server = await serve({
      fetch: async (request) => {
        const response = await store.fetch(request);
        seen.push(response.status);
        if (response.status === 503) setTimeout(release, 10);
        return response;
      },
      port: 0,
      host: '127.0.0.1',
      onError: () => {},
    });
    stops.push(() => server.close());
    const client = createPlantClient({ baseUrl: server.url, token: TOKEN, retry: RETRY });
    const plant = await withDeadline(
      client.createPlant({ id: TOP, name: 'Monstera' }),
      'the create',
    );
    assert.deepEqual(plant, { name: 'Monstera' });
    assert.deepEqual(seen, [503, 200]);
    assert.equal(map.calls(), 2);
    assert.deepEqual([...map.plants], [[TOP, { name: 'Monstera' }]]);
  });
});
