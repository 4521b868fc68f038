/**
 * `plant-store/fastify` in a real Fastify app, with the host's JSON parser, a form parser and
 * a hook of its own in front: the plugin answers as `store.fetch` does.
 *
 * @module
 */

import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { describe, it, type TestContext } from 'node:test';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { createCors } from '../../lib/cors.ts';
import plantStore from '../../lib/fastify.ts';
import { createPlantStore, createStaticTokenVerifier, type ErrorContext } from '../../lib/index.ts';
import { assertAnswersAsFetch, mountStore, TOKEN } from '../support/mount-helpers.ts';
import { parseRawResponse, rawClient, rawExchange, withDeadline } from '../support/node-helpers.ts';
import { operationUrl } from '../support/openapi.ts';

/** A host as users write one: its own JSON and form parsers, a hook, a route of its own. */
function host(): FastifyInstance {
  const app = Fastify();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addHook('onRequest', async (request) => {
    request.headers['x-seen-by-host'] = 'yes';
  });
  app.post('/echo', async (request) => ({ parsed: request.body }));
  return app;
}

async function listen(t: TestContext, app: FastifyInstance): Promise<string> {
  t.after(() => app.close());
  return app.listen({ port: 0, host: '127.0.0.1' });
}

const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

function create(body: string, headers: Record<string, string> = json): RequestInit {
  return { method: 'POST', headers, body };
}

/** The document's servers, as served at `url`. */
async function serversAt(url: string): Promise<string[]> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  const document = (await response.json()) as { servers: { url: string }[] };
  return document.servers.map((server) => server.url);
}

/** One raw HTTP/1.1 GET with the target as given (no client normalises it), parsed. */
async function rawGet(url: string, target: string) {
  const port = Number(new URL(url).port);
  const text = await rawExchange(
    port,
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
  );
  return parseRawResponse(text);
}

describe('plant-store/fastify', () => {
  it('answers every route as store.fetch does when registered under a prefix', async (t) => {
    const app = host();
    const { store } = mountStore();
    app.register(plantStore, { store, prefix: '/api' });
    const url = await listen(t, app);
    const reference = mountStore({ basePath: '/api' }).store;
    await assertAnswersAsFetch(`${url}/api`, reference.fetch);
  });

  it('answers every route as store.fetch does when registered without a prefix', async (t) => {
    const app = host();
    const { store } = mountStore();
    app.register(plantStore, { store });
    const url = await listen(t, app);
    await assertAnswersAsFetch(url, mountStore().store.fetch);
  });

  it("answers a CORS preflight and a browser's create as store.fetch does when cors is on", async (t) => {
    const cors = () => createCors({ origins: ['https://app.example.com'] });
    const app = host();
    app.register(plantStore, { store: mountStore({ cors: cors() }).store, prefix: '/api' });
    const url = await listen(t, app);
    const origin = { origin: 'https://app.example.com' };
    await assertAnswersAsFetch(
      `${url}/api`,
      mountStore({ basePath: '/api', cors: cors() }).store.fetch,
      [
        {
          name: 'a preflight',
          method: 'OPTIONS',
          path: '/plants',
          headers: { ...origin, 'access-control-request-method': 'POST' },
        },
        {
          name: 'a create from the allowed origin',
          method: 'POST',
          path: '/plants',
          headers: {
            ...origin,
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
          },
          body: '{"id": 1, "name": "Monstera"}',
        },
        { name: 'the document', method: 'GET', path: '/openapi.json', headers: origin },
      ],
    );
  });

  it('names the server "." in the document it serves under a prefix, the prefix once resolved', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api/v1' });
    const url = await listen(t, app);
    const [server = ''] = await serversAt(`${url}/api/v1/openapi.json`);
    assert.equal(operationUrl(server, `${url}/api/v1/openapi.json`), `${url}/api/v1/plants`);
    assert.equal(server, '.');
  });

  it('leaves the host its own parsers and routes outside the plugin', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const url = await listen(t, app);
    const echo = await fetch(`${url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a": 1}',
    });
    assert.deepEqual(await echo.json(), { parsed: { a: 1 } });
    const other = await fetch(`${url}/api/elsewhere`);
    assert.equal(other.status, 404);
  });

  it('serves the reference page under the prefix when docs is true', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api', docs: true });
    const url = await listen(t, app);
    const page = await fetch(`${url}/api/docs`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await page.text();
    assert.match(html, /data-document-url="\.\/openapi\.json"/);
    assert.match(html, /src="\.\/docs\/init\.js"/);
    const init = await fetch(`${url}/api/docs/init.js`);
    assert.equal(init.status, 200);
    const created = await fetch(`${url}/api/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Monstera"}',
    });
    assert.equal(created.status, 200);
  });

  it('serves no reference page when docs is not set', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const url = await listen(t, app);
    assert.equal((await fetch(`${url}/api/docs`)).status, 404);
  });

  it('hands a wrapped store the request below its prefix when the store is not createPlantStore’s', async (t) => {
    const app = host();
    const { store } = mountStore();
    const seen: string[] = [];
    const wrapped = {
      handleCreatePlant: store.handleCreatePlant,
      fetch: (request: Request) => {
        seen.push(new URL(request.url).pathname);
        return store.fetch(request);
      },
    };
    app.register(plantStore, { store: wrapped, prefix: '/api' });
    const url = await listen(t, app);
    const created = await fetch(`${url}/api/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": 9007199254740993, "name": "Monstera"}',
    });
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { name: 'Monstera' });
    assert.deepEqual(seen, ['/plants']);
  });

  it('fails registration with a TypeError when an option is unknown or the store missing', async () => {
    const misspelt = Fastify();
    misspelt.register(plantStore, { store: mountStore().store, doc: true } as never);
    await assert.rejects(async () => misspelt.ready(), {
      name: 'TypeError',
      message: /^plant-store\/fastify: unknown option "doc" \(known: .*\bdocs\b/,
    });
    const missing = Fastify();
    missing.register(plantStore, {} as never);
    await assert.rejects(async () => missing.ready(), {
      name: 'TypeError',
      message: /createPlantStore/,
    });
  });

  it("runs the host's onSend and onResponse hooks on every route of the plugin, as on its own", async (t) => {
    const app = host();
    const responded: string[] = [];
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('x-host-on-send', request.id);
      return payload;
    });
    app.addHook('onResponse', async (request, reply) => {
      responded.push(`${request.method} ${request.url} ${reply.statusCode}`);
    });
    app.register(plantStore, { store: mountStore().store, prefix: '/api', docs: true });
    const url = await listen(t, app);
    const answers = [
      await fetch(`${url}/api/plants`, create('{"id": 9007199254740993, "name": "Monstera"}')),
      await fetch(`${url}/api/plants`, create('{"id": 1}', { 'content-type': 'application/json' })),
      await fetch(`${url}/api/openapi.json`),
      await fetch(`${url}/api/docs`),
    ];
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.headers.get('x-host-on-send') !== null]),
      [
        [200, true],
        [401, true],
        [200, true],
        [200, true],
      ],
    );
    assert.equal(await answers[0]?.text(), '{"name":"Monstera"}');
    assert.equal(answers[0]?.headers.get('content-type'), 'application/json');
    assert.deepEqual(responded, [
      'POST /api/plants 200',
      'POST /api/plants 401',
      'GET /api/openapi.json 200',
      'GET /api/docs 200',
    ]);
  });

  it("answers 413 with the Error body past Fastify's bodyLimit when it is below maxBodyBytes", async (t) => {
    const app = Fastify({ bodyLimit: 1000 });
    const { store, errors } = mountStore();
    app.register(plantStore, { store, prefix: '/api' });
    const url = await listen(t, app);
    const big = `{"id": 1, "name": "${'x'.repeat(5000)}"}`;
    const declared = await fetch(`${url}/api/plants`, create(big));
    assert.equal(declared.status, 413);
    assert.deepEqual(await declared.json(), {
      error: 413,
      message: 'request body is larger than 1000 bytes',
    });
    // Without Content-Length the limit is counted while the body streams.
    const stream = new Blob([big]).stream();
    const chunked = await fetch(`${url}/api/plants`, {
      ...create(''),
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.deepEqual(await chunked.json(), {
      error: 413,
      message: 'request body is larger than 1000 bytes',
    });
    const small = await fetch(`${url}/api/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(small.status, 200);
    assert.deepEqual(errors, []);
  });

  it("takes a route's bodyLimit set by the host's onRoute hook, down to 1 byte", async (t) => {
    const app = Fastify();
    app.addHook('onRoute', (route) => {
      if (route.url === '/api/plants') route.bodyLimit = 1;
    });
    app.register(plantStore, { store: mountStore().store, prefix: '/api' });
    const url = await listen(t, app);
    const refused = await fetch(`${url}/api/plants`, create('{}'));
    assert.equal(refused.status, 413);
    assert.deepEqual(await refused.json(), {
      error: 413,
      message: 'request body is larger than 1 bytes',
    });
    // Step 3 comes before step 5: an empty body is still a 400.
    const empty = await fetch(`${url}/api/plants`, create(''));
    assert.equal(empty.status, 400);
    // A limit of 0 never reaches the store: Fastify refuses it when the app is made.
    assert.throws(() => Fastify({ bodyLimit: 0 }), {
      code: 'FST_ERR_ROUTE_BODY_LIMIT_OPTION_NOT_INT',
    });
  });

  it("hands onError Fastify's request id and the Fastify request, and logs through request.log without onError", async (t) => {
    const failing = {
      create: () => {
        throw new Error('the disk is on fire');
      },
    };
    const contexts: ErrorContext[] = [];
    let next = 0;
    const app = Fastify({ genReqId: () => `host-id-${++next}` });
    app.register(plantStore, {
      store: mountStore({
        repository: failing,
        onError: (_error, context) => contexts.push(context),
      }).store,
      prefix: '/api',
    });
    const lines: string[] = [];
    const logged = Fastify({
      logger: {
        level: 'error',
        stream: new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      },
      genReqId: () => 'logged-id',
    });
    const quietStore = createPlantStore({
      verifier: createStaticTokenVerifier([TOKEN]),
      repository: failing,
    });
    logged.register(plantStore, { store: quietStore, prefix: '/api' });
    const url = await listen(t, app);
    const loggedUrl = await listen(t, logged);
    const answer = await fetch(`${url}/api/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(answer.status, 500);
    assert.equal(contexts.length, 1);
    assert.equal(contexts[0]?.requestId, 'host-id-1');
    assert.equal((contexts[0]?.host as { id?: string } | undefined)?.id, 'host-id-1');
    const quiet = await fetch(`${loggedUrl}/api/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(quiet.status, 500);
    const entry = lines.map((line) => JSON.parse(line) as Record<string, unknown>).at(-1);
    assert.equal(entry?.reqId, 'logged-id');
    assert.equal(entry?.msg, 'plant-store: a create failed');
    assert.match(String((entry?.err as { message?: string } | undefined)?.message), /on fire/);
  });

  it("serves a store's basePath below the prefix, as a store with both in its basePath does", async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore({ basePath: '/v1' }).store, prefix: '/api' });
    const url = await listen(t, app);
    await assertAnswersAsFetch(`${url}/api/v1`, mountStore({ basePath: '/api/v1' }).store.fetch);
    assert.equal((await fetch(`${url}/api/plants`, create('{"id": 1, "name": "x"}'))).status, 404);
  });

  it("serves a store's publicUrl path below the prefix, its document naming the public URL", async (t) => {
    const app = host();
    const publicUrl = 'https://api.example.com/v1';
    app.register(plantStore, { store: mountStore({ publicUrl }).store, prefix: '/api' });
    const url = await listen(t, app);
    await assertAnswersAsFetch(
      `${url}/api/v1`,
      mountStore({ basePath: '/api/v1', publicUrl }).store.fetch,
    );
    assert.deepEqual(await serversAt(`${url}/api/v1/openapi.json`), [publicUrl]);
  });

  it('serves a parametric prefix per request, its document naming "." under each', async (t) => {
    const app = host();
    const { store } = mountStore({ basePath: '/v1' });
    app.register(plantStore, { store, prefix: '/:tenant', docs: true });
    const url = await listen(t, app);
    for (const tenant of ['acme', 'a%22b', 'a%2Fb', '%C3%A9t%C3%A9']) {
      await assertAnswersAsFetch(
        `${url}/${tenant}/v1`,
        mountStore({ basePath: `/${tenant}/v1` }).store.fetch,
      );
      assert.deepEqual(await serversAt(`${url}/${tenant}/v1/openapi.json`), ['.']);
      assert.equal((await fetch(`${url}/${tenant}/v1/docs`)).status, 200);
    }
    // A quote no client escaped reaches the route as it is; the document names no path.
    const quoted = await rawGet(url, '/a"b/v1/openapi.json');
    assert.equal(quoted.status, 200);
    assert.deepEqual(
      (JSON.parse(quoted.body) as { servers: { url: string }[] }).servers.map(({ url }) => url),
      ['.'],
    );
    // A dot segment is no prefix a document can name: the Error body, never a document.
    const dots = await rawGet(url, '/%2e%2e/v1/openapi.json');
    assert.equal(dots.status, 404);
    assert.deepEqual(JSON.parse(dots.body), { error: 404, message: 'not found' });
    // Nor is a character a URL parser leaves as it is but no URL path holds.
    const piped = await rawGet(url, '/a|b/v1/openapi.json');
    assert.equal(piped.status, 404);
    assert.deepEqual(JSON.parse(piped.body), { error: 404, message: 'not found' });
  });

  it('takes a prefix with a trailing slash as Fastify takes it', async (t) => {
    const app = host();
    app.register(plantStore, { store: mountStore().store, prefix: '/api/' });
    const root = host();
    root.register(plantStore, { store: mountStore().store, prefix: '/' });
    const url = await listen(t, app);
    const rootUrl = await listen(t, root);
    await assertAnswersAsFetch(`${url}/api`, mountStore({ basePath: '/api' }).store.fetch);
    await assertAnswersAsFetch(rootUrl, mountStore().store.fetch);
  });

  it('refuses at registration a prefix with a wildcard, naming the fix', async () => {
    const app = Fastify();
    app.register(plantStore, { store: mountStore().store, prefix: '/files/*' });
    await assert.rejects(async () => app.ready(), {
      name: 'TypeError',
      message: /^plant-store\/fastify: .*wildcard.*prefix/,
    });
  });

  it('closes the connection after a 413 whose body was never read, and drains a small unread body', async (t) => {
    const app = Fastify({ bodyLimit: 100 });
    app.register(plantStore, { store: mountStore().store });
    const url = await listen(t, app);
    const port = Number(new URL(url).port);
    const client = await rawClient(port);
    // 200 bytes declared, none sent: reading them would defeat the 413.
    client.socket.write(
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cr3t\r\n' +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n',
    );
    await withDeadline(client.closed, 'the server to close after a 413');
    const refused = parseRawResponse(client.text());
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.get('connection'), 'close');
    // A 401's small unread body is drained: the connection serves the next request.
    const kept = await rawClient(port);
    kept.socket.write(
      'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Content-Length: 2\r\n\r\n{}GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await kept.waitFor(/"openapi":"3\.1\.0"/, 'the second answer on a kept connection');
    assert.match(kept.text(), /^HTTP\/1\.1 401 /);
    kept.socket.destroy();
  });

  it("answers with Fastify's error when a host hook throws, and keeps serving", async (t) => {
    const app = Fastify();
    let fail = true;
    app.addHook('onSend', async (_request, _reply, payload) => {
      if (fail) throw new Error('a hook of the host failed');
      return payload;
    });
    const { store, errors } = mountStore();
    app.register(plantStore, { store, prefix: '/api' });
    const url = await listen(t, app);
    const failed = await fetch(`${url}/api/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(failed.status, 500);
    assert.equal(
      ((await failed.json()) as { message: string }).message,
      'a hook of the host failed',
    );
    fail = false;
    // The create was stored before the hook failed: the retry is a replay.
    const again = await fetch(`${url}/api/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(again.status, 200);
    assert.deepEqual(errors, []);
  });

  it('hears nothing of a client that leaves mid-body, and serves the next one', async (t) => {
    const app = Fastify();
    const { store, errors } = mountStore();
    app.register(plantStore, { store });
    const url = await listen(t, app);
    const client = await rawClient(Number(new URL(url).port));
    client.socket.write(
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cr3t\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id": 1,',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.socket.destroy();
    const next = await fetch(`${url}/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(next.status, 200);
    assert.deepEqual(errors, []);
  });

  it('answers a transfer coding it cannot read with 501 and closes, before the store reads a byte', async (t) => {
    const app = Fastify();
    const { store } = mountStore();
    app.register(plantStore, { store });
    const url = await listen(t, app);
    const text = await rawExchange(
      Number(new URL(url).port),
      'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cr3t\r\n' +
        'Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n' +
        '5\r\nhello\r\n0\r\n\r\n',
    );
    const answer = parseRawResponse(text);
    assert.equal(answer.status, 501);
    assert.equal(answer.headers.get('connection'), 'close');
    assert.deepEqual(JSON.parse(answer.body), {
      error: 501,
      message: 'transfer coding not implemented: gzip (only chunked is)',
    });
  });

  it("tells the create channel Fastify's request id and the route template, prefix and basePath included", async (t) => {
    const seen: unknown[] = [];
    const channel = diagnostics.tracingChannel('plant-store:create');
    const start = (message: unknown) => seen.push({ ...(message as object) });
    const handlers = { start, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    channel.subscribe(handlers);
    t.after(() => channel.unsubscribe(handlers));
    const app = Fastify({ genReqId: () => 'fastify-id' });
    app.register(plantStore, { store: mountStore({ basePath: '/v1' }).store, prefix: '/:tenant' });
    const url = await listen(t, app);
    const created = await fetch(`${url}/acme/v1/plants`, create('{"id": 1, "name": "Fern"}'));
    assert.equal(created.status, 200);
    assert.deepEqual(seen, [
      {
        requestId: 'fastify-id',
        method: 'POST',
        path: '/acme/v1/plants',
        route: '/:tenant/v1/plants',
        traceparent: undefined,
        tracestate: undefined,
      },
    ]);
  });
});
