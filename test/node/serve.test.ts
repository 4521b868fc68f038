import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ServeOptions, serve, toNodeListener } from '../../lib/node.ts';
import { TOKEN, testStore } from '../support/fakes.ts';
import { checkRaw, rawPlantRequest } from '../support/fault-helpers.ts';
import {
  delay,
  gate,
  heldHandler,
  parseRawResponse,
  rawClient,
  splitResponses,
  rawExchange,
  withDeadline,
} from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

const _INTERNAL = { error: 500, message: 'internal error' };

/** Describes the request the handler got, as JSON. */
async function echo(request: Request): Promise<Response> {
  return Response.json({
    method: request.method,
    url: request.url,
    headers: [...request.headers],
    body: request.body === null ? null : await request.text(),
  });
}

describe('serve', () => {
  it('listens on a free port when port is 0 and stops on close', async () => {
    const handle = await serve({ fetch: () => new Response('hi'), port: 0 });
    try {
      assert.ok(handle.port > 0);
      assert.equal(handle.url, `http://127.0.0.1:${handle.port}`);
      const response = await withDeadline(fetch(handle.url), 'fetch');
      assert.equal(await response.text(), 'hi');
    } finally {
      await withDeadline(handle.close(), 'close');
    }
    await assert.rejects(fetch(handle.url));
  });

  it('answers 400 with the Error body when a request has no Host header', async () => {
    const handle = await serve({ fetch: echo, port: 0 });
    try {
      const reply = parseRawResponse(await rawExchange(handle.port, 'GET / HTTP/1.1\r\n\r\n'));
      assert.equal(reply.status, 400);
      assert.equal(reply.headers.get('content-type'), 'application/json');
      assert.equal(JSON.parse(reply.body).error, 400);
    } finally {
      await handle.close();
    }
  });

  it('answers 400 with the Error body when the HTTP is malformed', async () => {
    const handle = await serve({ fetch: echo, port: 0 });
    try {
      for (const garbage of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
        const reply = parseRawResponse(await rawExchange(handle.port, garbage));
        assert.equal(reply.status, 400);
        assert.equal(reply.headers.get('content-type'), 'application/json');
        assert.deepEqual(JSON.parse(reply.body), { error: 400, message: 'malformed request' });
      }
    } finally {
      await handle.close();
    }
  });

  it('answers 431 with the Error body when the headers exceed maxHeaderSize', async () => {
    const handle = await serve({ fetch: echo, port: 0, maxHeaderSize: 1024 });
    try {
      const reply = parseRawResponse(
        await rawExchange(
          handle.port,
          `GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(4000)}\r\n\r\n`,
        ),
      );
      assert.equal(reply.status, 431);
      assert.equal(reply.headers.get('content-type'), 'application/json');
      assert.deepEqual(JSON.parse(reply.body), {
        error: 431,
        message: 'request headers are too large',
      });
    } finally {
      await handle.close();
    }
  });

  it('answers a create, then the malformed request pipelined behind it, then closes', async () => {
    // The parser rejects the trailing bytes while the create still waits for its verifier: the
    // create was executed, so it gets its response first (RFC 9112 section 9.6). This used to
    // cut the connection, with the plant stored and no answer.
    const release = gate();
    const { store, repository } = testStore({
      verifier: {
        async verify() {
          await release.promise;
          return { valid: true };
        },
      },
    });
    const handle = await serve({ fetch: store.fetch, port: 0 });
    try {
      const client = await rawClient(handle.port);
      client.socket.write(
        `${rawPlantRequest('{"id":42,"name":"Fern"}', TOKEN, { close: false })}GARBAGE\r\n\r\n`,
      );
      await delay(50);
      release.open();
      await withDeadline(client.closed, 'the connection to close after both answers');
      const [created, rejected] = splitResponses(client.text());
      assert.deepEqual(await checkRaw(created ?? ''), { status: 200, body: { name: 'Fern' } });
      assert.deepEqual(await checkRaw(rejected ?? ''), {
        status: 400,
        body: { error: 400, message: 'malformed request' },
      });
      assert.equal(parseRawResponse(rejected ?? '').headers.get('connection'), 'close');
      assert.equal(repository.create.mock.callCount(), 1);
    } finally {
      release.open();
      await handle.close();
    }
  });

  it('answers a malformed request with the Error body after a create on the same connection', async () => {
    const { store, repository } = testStore();
    const handle = await serve({ fetch: store.fetch, port: 0 });
    try {
      const client = await rawClient(handle.port);
      client.socket.write(rawPlantRequest('{"id":41,"name":"Fern"}', TOKEN, { close: false }));
      const created = await checkRaw(await client.waitFor(/"Fern"\}$/, 'the create'));
      assert.deepEqual(created, { status: 200, body: { name: 'Fern' } });
      const firstLength = client.text().length;
      client.socket.write('GARBAGE\r\n\r\n');
      await withDeadline(client.closed, 'the connection to close');
      const rejectedText = client.text().slice(firstLength);
      assert.equal(parseRawResponse(rejectedText).headers.get('connection'), 'close');
      assert.deepEqual(await checkRaw(rejectedText), {
        status: 400,
        body: { error: 400, message: 'malformed request' },
      });
      assert.equal(repository.create.mock.callCount(), 1);
    } finally {
      await handle.close();
    }
  });

  it('finishes a response in flight before answering a malformed request behind it', async () => {
    const release = gate();
    const handle = await serve({
      fetch: async () => {
        await release.promise;
        return new Response('late');
      },
      port: 0,
    });
    try {
      const client = await rawClient(handle.port);
      client.socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\nGARBAGE\r\n\r\n');
      await delay(50);
      assert.equal(client.text(), '', 'nothing is written ahead of the owed response');
      release.open();
      await withDeadline(client.closed, 'the connection to close after both answers');
      const [first, second] = splitResponses(client.text());
      assert.equal(parseRawResponse(first ?? '').status, 200);
      assert.equal(parseRawResponse(first ?? '').body, 'late');
      assert.equal(parseRawResponse(second ?? '').status, 400);
    } finally {
      release.open();
      await handle.close();
    }
  });

  it('disconnects a slowloris client that sends its headers byte by byte', async () => {
    const handle = await serve({
      fetch: () => new Response('ok'),
      port: 0,
      headersTimeout: 300,
      requestTimeout: 600,
      connectionsCheckingInterval: 50,
    });
    try {
      const client = await rawClient(handle.port);
      const head = `GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ${'s'.repeat(200)}`;
      let cut = false;
      void client.closed.then(() => {
        cut = true;
      });
      const started = Date.now();
      for (const byte of head) {
        if (cut) break;
        client.socket.write(byte);
        await delay(20);
      }
      assert.ok(cut, 'the slow client was still connected after sending its whole head');
      assert.ok(Date.now() - started >= 250, 'cut before headersTimeout');
      assert.equal(client.text(), '');
      // Others are still served.
      assert.equal(await (await withDeadline(fetch(handle.url), 'fetch')).text(), 'ok');
    } finally {
      await handle.close();
    }
  });

  it('disconnects a client that sends its body too slowly for requestTimeout', async () => {
    const handle = await serve({
      fetch: async (request) => new Response(await request.text()),
      port: 0,
      headersTimeout: 200,
      requestTimeout: 400,
      connectionsCheckingInterval: 50,
    });
    try {
      const client = await rawClient(handle.port);
      client.socket.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 200\r\n\r\n');
      let cut = false;
      void client.closed.then(() => {
        cut = true;
      });
      for (let i = 0; i < 200 && !cut; i++) {
        client.socket.write('b');
        await delay(20);
      }
      assert.ok(cut, 'the slow body was accepted');
    } finally {
      await handle.close();
    }
  });

  it('lets an in-flight request finish on close while refusing new connections', async () => {
    const held = heldHandler();
    const handle = await serve({
      fetch: held.fetch,
      port: 0,
    });
    const inFlight = fetch(handle.url);
    await withDeadline(held.entered.promise, 'the request to arrive');
    const closed = handle.close();
    assert.equal(handle.close(), closed, 'close() returns the same promise twice');
    await assert.rejects(withDeadline(fetch(handle.url), 'a fetch during shutdown'));
    held.release.open();
    const response = await withDeadline(inFlight, 'the in-flight response');
    assert.equal(await response.text(), 'finished');
    await withDeadline(closed, 'close to resolve after the in-flight request');
  });

  it('cuts in-flight requests and aborts their signal after shutdownTimeout', async () => {
    const entered = gate();
    const aborted = gate();
    const handle = await serve({
      fetch: (request) =>
        new Promise<Response>(() => {
          request.signal.addEventListener('abort', () => aborted.open());
          entered.open();
        }),
      port: 0,
      shutdownTimeout: 200,
    });
    const inFlight = fetch(handle.url).catch((error: unknown) => error);
    await withDeadline(entered.promise, 'the request to arrive');
    await withDeadline(handle.close(), 'close to give up waiting', 2000);
    await withDeadline(aborted.promise, 'the signal to abort');
    assert.ok((await inFlight) instanceof Error);
  });

  it('rejects when the port is taken and throws a TypeError for a bad option', async () => {
    const first = await serve({ fetch: echo, port: 0 });
    try {
      await assert.rejects(serve({ fetch: echo, port: first.port }), { code: 'EADDRINUSE' });
    } finally {
      await first.close();
    }
    assert.throws(() => serve({ fetch: echo, port: 70000 }), TypeError);
    assert.throws(() => serve({ fetch: echo, host: '' }), TypeError);
    assert.throws(() => serve({ fetch: echo, headersTimeout: -1 }), TypeError);
    // To node, a timeout of 0 means "never": slowloris protection off.
    for (const name of [
      'headersTimeout',
      'requestTimeout',
      'keepAliveTimeout',
      'connectionsCheckingInterval',
      'maxConnections',
    ]) {
      assert.throws(() => serve({ fetch: echo, [name]: 0 }), {
        name: 'TypeError',
        message: `${name} must be a positive integer`,
      });
    }
    assert.throws(
      () => serve({ fetch: echo, headersTimeout: 2000, requestTimeout: 1000 }),
      TypeError,
    );
  });

  it('refuses a time longer than a timer holds, which node would fire at once', () => {
    // node fires a timer past 2^31 - 1 ms at once: a shutdownDelay of 2^31 ms was no delay at all.
    for (const name of [
      'headersTimeout',
      'requestTimeout',
      'keepAliveTimeout',
      'connectionsCheckingInterval',
      'shutdownTimeout',
      'shutdownDelay',
      'drainTimeout',
    ]) {
      const options = { fetch: echo, [name]: 2 ** 31 };
      if (name === 'headersTimeout') options.requestTimeout = 2 ** 31 - 1;
      assert.throws(() => serve(options), {
        name: 'TypeError',
        message: `${name} must be at most 2147483647 ms`,
      });
    }
    assert.throws(() => toNodeListener(echo, { drainTimeout: 2 ** 31 }), {
      name: 'TypeError',
      message: 'drainTimeout must be at most 2147483647 ms',
    });
  });
});

describe('serve with createPlantStore', () => {
  const { store, repository } = testStore();
  let handle: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    handle = await serve({ fetch: store.fetch, port: 0 });
  });
  after(() => handle.close());

  /** Sends over HTTP and checks the response against the OpenAPI document. */
  async function call(
    path: string,
    init: RequestInit & { duplex?: 'half' },
    where: 'createPlant' | 'NotFound' | 'MethodNotAllowed' = 'createPlant',
  ): Promise<{ response: Response; body: unknown }> {
    const response = await withDeadline(fetch(handle.url + path, init), `${init.method} ${path}`);
    const body = await assertMatchesOpenApi(response.clone(), where);
    return { response, body };
  }
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

  it('answers 401 with WWW-Authenticate when the token is missing or rejected', async () => {
    const missing = await call('/plants', { method: 'POST', body: '{"id":1,"name":"a"}' });
    assert.equal(missing.response.status, 401);
    assert.equal(missing.response.headers.get('www-authenticate'), 'Bearer realm="plant-store"');
    const rejected = await call('/plants', {
      method: 'POST',
      headers: { ...auth, authorization: 'Bearer wrong' },
      body: '{"id":1,"name":"a"}',
    });
    assert.equal(rejected.response.status, 401);
    assert.equal(
      rejected.response.headers.get('www-authenticate'),
      'Bearer realm="plant-store", error="invalid_token"',
    );
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('answers 405 with Allow: POST when the method is not POST', async () => {
    const { response, body } = await call('/plants', { method: 'GET' }, 'MethodNotAllowed');
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal((body as { error: number }).error, 405);
  });

  it('answers 404 for an unknown path and serves the OpenAPI document without a token', async () => {
    const missing = await call('/nope', { method: 'GET' }, 'NotFound');
    assert.equal(missing.response.status, 404);
    const document = await withDeadline(fetch(`${handle.url}/openapi.json`), 'GET /openapi.json');
    assert.equal(document.status, 200);
    assert.equal(document.headers.get('content-type'), 'application/json');
    assert.equal((await document.json()).openapi, '3.1.0');
  });

  it('answers 400 when the body is empty and 415 when it is not JSON', async () => {
    const empty = await call('/plants', { method: 'POST', headers: auth, body: '' });
    assert.equal(empty.response.status, 400);
    const text = await call('/plants', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: '{"id":1,"name":"a"}',
    });
    assert.equal(text.response.status, 415);
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('answers 413 when a chunked body streams past the limit', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 200 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const { response, body: answer } = await call('/plants', {
      method: 'POST',
      headers: auth,
      body,
      duplex: 'half',
    });
    assert.equal(response.status, 413);
    assert.deepEqual(answer, { error: 413, message: 'request body is larger than 102400 bytes' });
    assert.equal(repository.create.mock.callCount(), 0);
  });

  it('creates with 200, replays with 200 and refuses a different plant under the id with 409', async () => {
    const plant = '{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}';
    const created = await call('/plants', { method: 'POST', headers: auth, body: plant });
    assert.equal(created.response.status, 200);
    assert.deepEqual(created.body, { name: 'Monstera', tag: 'aroid' });
    const replay = await call('/plants', { method: 'POST', headers: auth, body: plant });
    assert.equal(replay.response.status, 200);
    const conflict = await call('/plants', {
      method: 'POST',
      headers: auth,
      body: '{"id": 9007199254740993, "name": "Fern"}',
    });
    assert.equal(conflict.response.status, 409);
  });
});

describe('serve with requestIds and onRequestEnd', () => {
  it('keeps a usable X-Request-Id, makes one otherwise, and sends it on every response', async () => {
    const records: unknown[] = [];
    const contexts: unknown[] = [];
    const { store } = testStore({
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
      onError: (_error, context) => contexts.push(context),
    });
    const handle = await serve({
      fetch: store.fetch,
      port: 0,
      requestIds: true,
      onRequestEnd: (record) => records.push(record),
    });
    try {
      const kept = await withDeadline(
        fetch(`${handle.url}/plants`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            'x-request-id': 'client-id_1',
          },
          body: '{"id":1,"name":"a"}',
        }),
        'a create',
      );
      assert.equal(kept.status, 500);
      assert.equal(kept.headers.get('x-request-id'), 'client-id_1');
      await kept.text();
      // A made id: the process's random prefix, then a counter; never the same twice.
      const MADE_ID = /^[0-9a-f]{12}-[1-9a-f][0-9a-f]*$/;
      const made: string[] = [];
      for (const unusable of ['has space', 'x'.repeat(201), undefined]) {
        const answer = await fetch(`${handle.url}/openapi.json`, {
          headers: unusable === undefined ? {} : { 'x-request-id': unusable },
        });
        made.push(answer.headers.get('x-request-id') ?? '');
        await answer.text();
      }
      // Even the answer to bytes the parser rejects carries one.
      const rejected = parseRawResponse(await rawExchange(handle.port, 'GARBAGE\r\n\r\n'));
      assert.equal(rejected.status, 400);
      made.push(rejected.headers.get('x-request-id') ?? '');
      for (const id of made) assert.match(id, MADE_ID);
      assert.equal(new Set(made).size, made.length, 'each made id is new');
      assert.equal(new Set(made.map((id) => id.split('-')[0])).size, 1, 'one prefix per process');
      // A header's name is case-insensitive (RFC 9110 section 5.1), however a client spells it.
      const shouted = parseRawResponse(
        await rawExchange(
          handle.port,
          'GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-REQUEST-ID: Shouted-1\r\nConnection: close\r\n\r\n',
        ),
      );
      assert.equal(shouted.headers.get('x-request-id'), 'Shouted-1');
      assert.deepEqual(
        contexts.map((context) => (context as { requestId?: string }).requestId),
        ['client-id_1'],
        "onError gets the request's id",
      );
      await delay(20);
      const first = records[0] as Record<string, unknown>;
      assert.equal(first.requestId, 'client-id_1');
      assert.equal(first.method, 'POST');
      assert.equal(first.path, '/plants');
      assert.equal(first.status, 500);
      assert.ok((first.bytesIn as number) > 0 && (first.bytesOut as number) > 0);
      assert.equal(records.length, 6);
    } finally {
      await handle.close();
    }
  });

  it('counts made ids on in hexadecimal, across every carry (f to 10, ff to 100)', async () => {
    const { store } = testStore();
    const handle = await serve({ fetch: store.fetch, port: 0, requestIds: true });
    try {
      // 300 ids in a row pass at least one multiple of 256, wherever the process's counter is.
      const counters: number[] = [];
      for (let i = 0; i < 300; i++) {
        const answer = await fetch(`${handle.url}/openapi.json`);
        await answer.text();
        const id = answer.headers.get('x-request-id') ?? '';
        assert.match(id, /^[0-9a-f]{12}-[1-9a-f][0-9a-f]*$/);
        counters.push(Number.parseInt(id.slice(13), 16));
      }
      const steps = counters.slice(1).map((counter, i) => counter - (counters[i] as number));
      assert.deepEqual(new Set(steps), new Set([1]), 'each id is the one before it, plus one');
      assert.ok(counters.some((counter) => counter % 256 === 0));
    } finally {
      await handle.close();
    }
  });

  it('throws a TypeError naming a misspelled option and the options it knows', () => {
    // `serve({ prot: 38211 })` listened on 3000 without a word.
    const { store } = testStore();
    assert.throws(() => serve({ fetch: store.fetch, prot: 38211 } as object as ServeOptions), {
      name: 'TypeError',
      message: /serve: unknown option "prot" \(known: .*\bport\b/,
    });
    assert.throws(
      () =>
        serve({ fetch: store.fetch, port: 0, onRequestEnds: () => {} } as object as ServeOptions),
      { name: 'TypeError', message: /unknown option "onRequestEnds" \(known: .*onRequestEnd\b/ },
    );
  });

  it('throws a TypeError for an observing option of the wrong type', async () => {
    const { store } = testStore();
    for (const options of [{ requestIds: 'yes' }, { onRequestEnd: 'log' }]) {
      assert.throws(
        () => serve({ fetch: store.fetch, port: 0, ...(options as object) }),
        TypeError,
      );
    }
  });
});

describe('serve with hooks that fail', () => {
  /** Collects what escapes to the process while `run` runs, and a little after. */
  async function escapes(run: () => Promise<void>): Promise<unknown[]> {
    const escaped: unknown[] = [];
    const heard = (error: unknown): void => void escaped.push(error);
    process.on('uncaughtException', heard);
    process.on('unhandledRejection', heard);
    try {
      await run();
      await delay(50);
    } finally {
      process.off('uncaughtException', heard);
      process.off('unhandledRejection', heard);
    }
    return escaped;
  }

  it('answers every request and reports each failure once to onError when a hook throws or rejects', async () => {
    // A hook is the host's code inside a request any client can send: its failure must not
    // reach the process, where it would stop every other request.
    const { store } = testStore();
    const hooks = {
      'a throwing onRequestStart': {
        onRequestStart: () => {
          throw new Error('start failed');
        },
      },
      'a throwing onRequestEnd': {
        onRequestEnd: () => {
          throw new Error('end failed');
        },
      },
      'a rejecting onRequestStart': {
        onRequestStart: async () => {
          throw new Error('start rejected');
        },
      },
      'a rejecting onRequestEnd': {
        onRequestEnd: async () => {
          throw new Error('end rejected');
        },
      },
    };
    for (const [what, hook] of Object.entries(hooks)) {
      const reported: unknown[] = [];
      const escaped = await escapes(async () => {
        const handle = await serve({
          fetch: store.fetch,
          port: 0,
          onError: (error) => reported.push(error),
          ...hook,
        });
        try {
          const plants = await withDeadline(
            fetch(`${handle.url}/plants`, { method: 'POST' }),
            what,
          );
          assert.equal(plants.status, 401, what);
          await plants.text();
          const document = await withDeadline(fetch(`${handle.url}/openapi.json`), what);
          assert.equal(document.status, 200, what);
          await document.text();
          // The answers written straight to the socket call the hooks too.
          const rejected = parseRawResponse(await rawExchange(handle.port, 'GARBAGE\r\n\r\n'));
          assert.equal(rejected.status, 400, what);
          await delay(20);
        } finally {
          await handle.close();
        }
      });
      assert.deepEqual(escaped, [], `${what}: nothing reaches the process`);
      assert.equal(reported.length, 3, `${what}: one report per request`);
      for (const error of reported) assert.match((error as Error).message, /failed|rejected/);
    }
  });

  it('writes to stderr, once per failure, when onError itself throws while reporting a hook', async (t) => {
    const { store } = testStore();
    const stderr = t.mock.method(console, 'error', () => {});
    const escaped = await escapes(async () => {
      const handle = await serve({
        fetch: store.fetch,
        port: 0,
        onRequestEnd: async () => {
          throw new Error('end rejected');
        },
        onError: () => {
          throw new Error('onError failed');
        },
      });
      try {
        const response = await withDeadline(fetch(`${handle.url}/openapi.json`), 'a request');
        assert.equal(response.status, 200);
        await response.text();
        await delay(20);
      } finally {
        await handle.close();
      }
    });
    assert.deepEqual(escaped, []);
    assert.equal(stderr.mock.callCount(), 1);
    assert.match(String(stderr.mock.calls[0]?.arguments[1]), /onError failed/);
  });
});
