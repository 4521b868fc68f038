/**
 * The framework matrix: a store mounted at the root, under a prefix and under a prefix with a
 * parameter, with a `basePath` or a `publicUrl`, over HTTP/1.1 and (where the framework has it)
 * HTTP/2, each in an app with the host's own CORS, security-headers and compression plug-ins in
 * front. Every cell must answer as the store's own `fetch` does under the same full path, plus
 * what the host's plug-ins add (proof that they ran): the body byte for byte once decompressed,
 * exact int64 ids included. The document each cell serves names the server `.` (the directory it
 * is served from, so the API inside the mount), or the public URL. No test runner here: the
 * `*.test.ts` files beside it run the cells.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { connect, createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import { serve as serveHono } from '@hono/node-server';
import compression from 'compression';
import cors from 'cors';
import express from 'express';
import Fastify from 'fastify';
import helmet from 'helmet';
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { cors as honoCors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { createRouter } from '../../lib/express.ts';
import plantStore from '../../lib/fastify.ts';
import type { CreatePlantStoreOptions, PlantStore } from '../../lib/index.ts';
import { fetchOver } from '../support/http2-helpers.ts';
import { answerOf, MOUNT_CASES, mountStore, type WireClient } from '../support/mount-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';
import { operationUrl } from '../support/openapi.ts';

export type Framework = 'Fastify' | 'Express' | 'Hono';
export type Mount = 'root' | 'prefix' | 'parametric';
export type Location = 'basePath' | 'publicUrl';
export type Protocol = 'HTTP/1.1' | 'HTTP/2';

export interface Cell {
  readonly framework: Framework;
  readonly mount: Mount;
  readonly location: Location;
  readonly protocol: Protocol;
}

/** The browser origin the hosts' CORS plug-ins allow. */
export const ORIGIN = 'https://app.example.com';
const PUBLIC_URL = 'https://api.example.com/v1';
/** The mount path each kind of mount is registered with, and the one requests take. */
const MOUNT_PATHS: Record<Mount, { registered: string; concrete: string }> = {
  root: { registered: '', concrete: '' },
  prefix: { registered: '/api', concrete: '/api' },
  parametric: { registered: '/:tenant', concrete: '/acme' },
};

/** Every cell a framework has: HTTP/2 only where it serves it. */
export function cellsOf(framework: Framework): Cell[] {
  const protocols: Protocol[] = framework === 'Express' ? ['HTTP/1.1'] : ['HTTP/1.1', 'HTTP/2'];
  return (['root', 'prefix', 'parametric'] as const).flatMap((mount) =>
    (['basePath', 'publicUrl'] as const).flatMap((location) =>
      protocols.map((protocol) => ({ framework, mount, location, protocol })),
    ),
  );
}

/** A cell's name in a test title. */
export function nameOf({ framework, mount, location, protocol }: Cell): string {
  return `${framework}, ${mount} mount, ${location}, ${protocol}`;
}

/** The store's options: where it lives below the mount path. */
function locationOptions(location: Location, below = ''): Partial<CreatePlantStoreOptions> {
  return location === 'basePath'
    ? { basePath: `${below}/v1` }
    : { publicUrl: PUBLIC_URL, ...(below === '' ? {} : { basePath: `${below}/v1` }) };
}

/** A started app: its URL, and how it is stopped. */
interface Started {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/**
 * Serves `cell` in a real app of its framework, with `express` the Express module the app is
 * built with (4 or 5), sends every case to it and to the reference store, and compares.
 */
export async function assertCell(cell: Cell, expressModule = express): Promise<void> {
  const { registered, concrete } = MOUNT_PATHS[cell.mount];
  const started = await start(cell, registered, expressModule);
  const session = cell.protocol === 'HTTP/2' ? connect(started.url) : undefined;
  session?.on('error', () => {});
  try {
    const send = session === undefined ? fetch : gunzipped(fetchOver(session));
    const full = `${concrete}/v1`;
    const reference = mountStore({
      ...locationOptions(cell.location),
      basePath: full,
    }).store.fetch;
    await assertHostedAsFetch(`${started.url}${full}`, reference, send);
    await assertServer(`${started.url}${full}`, cell.location, send);
  } finally {
    session?.destroy();
    await started.close();
  }
}

async function start(cell: Cell, mountPath: string, expressModule: typeof express) {
  if (cell.framework === 'Fastify') return startFastify(cell, mountPath);
  if (cell.framework === 'Express') return startExpress(cell, mountPath, expressModule);
  return startHono(cell, mountPath);
}

async function startFastify(cell: Cell, prefix: string): Promise<Started> {
  const app = Fastify({ http2: cell.protocol === 'HTTP/2' } as { http2: false });
  await app.register(fastifyCors, { origin: ORIGIN });
  await app.register(fastifyHelmet);
  await app.register(fastifyCompress, { threshold: 0 });
  const { store } = mountStore(locationOptions(cell.location));
  await app.register(plantStore, { store, ...(prefix === '' ? {} : { prefix }) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

async function startExpress(
  cell: Cell,
  mountPath: string,
  expressModule: typeof express,
): Promise<Started> {
  const app = expressModule();
  app.disable('x-powered-by');
  app.use(cors({ origin: ORIGIN }), helmet(), compression({ threshold: 0 }));
  const router = createRouter(mountStore(locationOptions(cell.location)).store);
  if (mountPath === '') app.use(router);
  else app.use(mountPath, router);
  app.use(expressModule.json());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startHono(cell: Cell, mountPath: string): Promise<Started> {
  const app = new Hono();
  app.use(honoCors({ origin: ORIGIN }), secureHeaders(), compress({ threshold: 0 }));
  if (cell.mount === 'parametric') {
    app.all('/:tenant/*', storePerPrefix(locationOptions(cell.location, '/:tenant')));
  } else {
    // The README's recipe: the store's basePath is the whole path; Hono hands it the request as it came.
    const { store } = mountStore(locationOptions(cell.location, mountPath));
    app.mount(mountPath || '/v1', store.fetch, { replaceRequest: false });
  }
  const server = serveHono({
    fetch: app.fetch,
    port: 0,
    hostname: '127.0.0.1',
    ...(cell.protocol === 'HTTP/2' ? { createServer: createHttp2Server } : {}),
  });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A host's recipe for a Hono route with a parameter: Hono tells a handler no mount path, so each
 * prefix gets a store of its own whose basePath names it (they may share a repository).
 */
function storePerPrefix(options: Partial<CreatePlantStoreOptions>) {
  const stores = new Map<string, PlantStore>();
  return (c: { req: { url: string; raw: Request } }) => {
    const prefix = new URL(c.req.url).pathname.split('/', 2).join('/');
    let store = stores.get(prefix);
    if (store === undefined) {
      store = mountStore({ ...options, basePath: `${prefix}/v1` }).store;
      if (stores.size < 64) stores.set(prefix, store);
    }
    return store.fetch(c.req.raw, c);
  };
}

/** The document under `base` names the server `.`, which resolves to `base`, or the public URL. */
async function assertServer(base: string, location: Location, send: WireClient): Promise<void> {
  const documentUrl = `${base}/openapi.json`;
  const init = { method: 'GET', headers: {}, body: null };
  const response = await withDeadline(send(documentUrl, init), 'the document');
  const { servers } = (await response.json()) as { servers: { url: string }[] };
  if (location === 'publicUrl') {
    assert.deepEqual(servers, [{ url: PUBLIC_URL }]);
    return;
  }
  assert.equal(operationUrl(servers[0]?.url ?? '', documentUrl), `${base}/plants`);
  assert.deepEqual(servers, [{ url: '.' }]);
}

/** A client whose gzip answers come back decompressed, as `fetch` hands them over. */
function gunzipped(send: WireClient): WireClient {
  return async (url, init) => {
    const response = await send(url, init);
    if (response.headers.get('content-encoding') !== 'gzip') return response;
    const body = gunzipSync(Buffer.from(await response.arrayBuffer()));
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/**
 * Sends every case from the allowed origin, accepting gzip, to `base` and to `reference`: equal
 * status and body, every header of the reference's answer on the wire (`Vary` may list more),
 * and the marks of the host's plug-ins: CORS, `nosniff`, and a gzip body wherever there is one.
 */
async function assertHostedAsFetch(
  base: string,
  reference: (request: Request) => Promise<Response>,
  send: WireClient,
): Promise<void> {
  for (const { name, method, path, headers = {}, body } of MOUNT_CASES) {
    const init = {
      method,
      headers: { ...headers, origin: ORIGIN, 'accept-encoding': 'gzip' },
      body: body ?? null,
    };
    const wire = await answerOf(await withDeadline(send(base + path, init), name));
    const direct = await answerOf(await reference(new Request(base + path, init)));
    assert.equal(wire.status, direct.status, name);
    assert.equal(wire.body, direct.body, name);
    for (const [header, value] of Object.entries(direct.headers)) {
      if (header === 'vary') {
        const listed = (wire.headers.vary ?? '').toLowerCase();
        for (const token of value.toLowerCase().split(/\s*,\s*/)) {
          assert.ok(listed.includes(token), `${name}: vary lists ${token}`);
        }
      } else {
        assert.equal(wire.headers[header], value, `${name}: ${header}`);
      }
    }
    assert.equal(wire.headers['access-control-allow-origin'], ORIGIN, `${name}: CORS`);
    assert.equal(wire.headers['x-content-type-options'], 'nosniff', `${name}: security headers`);
    if (direct.body !== '') assert.equal(wire.headers['content-encoding'], 'gzip', `${name}: gzip`);
  }
}
