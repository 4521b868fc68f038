import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { toNodeListener } from '../../lib/node.ts';
import {
  DEADLINE_MS,
  delay,
  gate,
  listen,
  parseRawResponse,
  rawClient,
  rawExchange,
  type TestServer,
  withDeadline,
} from '../support/node-helpers.ts';

const INTERNAL = { error: 500, message: 'internal error' };

/** Describes the request the handler got, as JSON. */
async function echo(request: Request): Promise<Response> {
  return Response.json({
    method: request.method,
    url: request.url,
    headers: [...request.headers],
    body: request.body === null ? null : await request.text(),
  });
}

/** `http.request` with the response body collected; rejects if the connection breaks. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Iterable<string> },
): Promise<{ response: IncomingMessage; body: string }> {
  return withDeadline(
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers });
      req.on('error', reject);
      req.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ response, body }));
        response.on('error', reject);
      });
      for (const chunk of options.body ?? []) req.write(chunk);
      req.end();
    }),
    `${options.method ?? 'GET'} ${url}`,
  );
}

describe('toNodeListener', () => {
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));
  async function start(...args: Parameters<typeof listen>): Promise<TestServer> {
    const server = await listen(...args);
    servers.push(server);
    return server;
  }

  it('builds the URL from Host and path and keeps repeated headers when they come in rawHeaders', async () => {
    const server = await start(echo);
    const client = await rawClient(server.port);
    client.socket.write(
      'GET /plants?x=1 HTTP/1.1\r\nHost: example.test:8080\r\nX-Many: one\r\nX-Many: two\r\n' +
        'Cookie: a=1\r\nCookie: b=2\r\nConnection: close\r\n\r\n',
    );
    await withDeadline(client.closed, 'the echo response');
    const body = JSON.parse(parseRawResponse(client.text()).body);
    assert.equal(body.method, 'GET');
    assert.equal(body.url, 'http://example.test:8080/plants?x=1');
    const headers = new Map<string, string>(body.headers);
    assert.equal(headers.get('x-many'), 'one, two');
    assert.equal(headers.get('cookie'), 'a=1; b=2');
    assert.equal(body.body, null);
  });

  it('hands a handler a native Request that new Request(request, init) copies, body included', async () => {
    // A Request look-alike fails here: fetch copies a request from its private state.
    const server = await start(async (request) => {
      assert.ok(request instanceof Request);
      const copy = new Request(request, { headers: { 'x-copied': 'yes' } });
      return Response.json({
        method: copy.method,
        url: copy.url,
        copied: copy.headers.get('x-copied'),
        body: await copy.text(),
      });
    });
    const { response, body } = await send(`${server.url}/plants?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-length': '5' },
      body: ['hello'],
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(JSON.parse(body), {
      method: 'POST',
      url: `${server.url}/plants?x=1`,
      copied: 'yes',
      body: 'hello',
    });
  });

  it('gives the request no body when the headers announce none', async () => {
    const server = await start(echo);
    for (const [method, headers] of [
      ['GET', {}],
      ['HEAD', {}],
      ['POST', {}],
      ['POST', { 'content-length': '0' }],
    ] as const) {
      const { response, body } = await send(`${server.url}/x`, { method, headers });
      assert.equal(response.statusCode, 200);
      if (method !== 'HEAD') assert.equal(JSON.parse(body).body, null, `${method} ${headers}`);
    }
  });

  it('streams a chunked request body to the handler when it has no Content-Length', async () => {
    const server = await start(echo);
    const { response, body } = await send(`${server.url}/plants`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: ['{"id":', ' 1, "na', 'me": "Fern"}'],
    });
    assert.equal(response.statusCode, 200);
    assert.equal(JSON.parse(body).body, '{"id": 1, "name": "Fern"}');
  });

  it('answers 400 with the Error body when the Host header is missing, repeated or malformed', async () => {
    const server = await start(echo);
    for (const head of [
      'GET /plants HTTP/1.0\r\n',
      'GET /plants HTTP/1.0\r\nHost: a.test\r\nHost: b.test\r\n',
      'GET /plants HTTP/1.1\r\nHost: evil.test/admin?\r\n',
      'GET /plants HTTP/1.1\r\nHost: a b\r\n',
      'GET /plants HTTP/1.1\r\nHost: x.test:99999\r\n',
    ]) {
      const reply = parseRawResponse(
        await rawExchange(server.port, `${head}Connection: close\r\n\r\n`),
      );
      assert.equal(reply.status, 400, head);
      assert.equal(reply.headers.get('content-type'), 'application/json');
      assert.equal(JSON.parse(reply.body).error, 400);
      assert.equal(typeof JSON.parse(reply.body).message, 'string');
    }
  });

  it('still refuses a malformed Host between requests that name a valid one', async () => {
    // The listener remembers the last valid Host; only that exact value may skip the check.
    const server = await start(echo);
    for (const [host, status] of [
      ['a.test', 200],
      ['a.test/admin?', 400],
      ['a.test/admin?', 400],
      ['a.test', 200],
      ['a.test:99999', 400],
    ] as const) {
      const reply = parseRawResponse(
        await rawExchange(
          server.port,
          `GET /x HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ),
      );
      assert.equal(reply.status, status, host);
    }
  });

  it('answers 501 to a method no Request can carry, and 400 to a target it cannot', async () => {
    // TRACE and CONNECT are forbidden in a fetch Request: a handler that is no plant store
    // cannot be handed them, so the server says it does not implement them (RFC 9110 15.6.2).
    const server = await start(echo);
    const trace = parseRawResponse(
      await rawExchange(
        server.port,
        'TRACE / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n',
      ),
    );
    assert.equal(trace.status, 501);
    assert.deepEqual(JSON.parse(trace.body), {
      error: 501,
      message: 'the method TRACE is not implemented',
    });
    const asterisk = parseRawResponse(
      await rawExchange(server.port, 'OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n'),
    );
    assert.deepEqual(JSON.parse(asterisk.body), {
      error: 400,
      message: 'the request target is not supported',
    });
  });

  it('takes the URL from an absolute-form request target', async () => {
    const server = await start(echo);
    const reply = parseRawResponse(
      await rawExchange(
        server.port,
        'GET http://other.test/plants HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n',
      ),
    );
    assert.equal(JSON.parse(reply.body).url, 'http://other.test/plants');
  });

  it('aborts request.signal and fails the body read when the client disconnects mid-body', async () => {
    const reading = gate();
    const aborted = gate<unknown>();
    const readFailed = gate<unknown>();
    const server = await start(async (request) => {
      if (request.body === null) return new Response('no body');
      request.signal.addEventListener('abort', () => aborted.open(request.signal.reason));
      const reader = (request.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      reading.open();
      try {
        for (;;) if ((await reader.read()).done) break;
      } catch (error) {
        readFailed.open(error);
      }
      return new Response('never sent');
    });
    const client = await rawClient(server.port);
    client.socket.write(
      'POST /plants HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1000\r\n\r\n0123456789',
    );
    await withDeadline(reading.promise, 'the handler to start reading');
    client.socket.destroy();
    const reason = await withDeadline(aborted.promise, 'request.signal to abort');
    assert.equal((reason as DOMException).name, 'AbortError');
    await withDeadline(readFailed.promise, 'the body read to fail');
    // The server survived and serves the next client.
    const { response } = await send(`${server.url}/x`, {});
    assert.equal(response.statusCode, 200);
  });

  it('fails the body read at once when the client left before the handler started reading', async () => {
    const failed = gate<unknown>();
    const server = await start(async (request) => {
      if (!request.signal.aborted) {
        await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      }
      await request.text().catch((error: unknown) => failed.open(error));
      return new Response('never sent');
    });
    const client = await rawClient(server.port);
    client.socket.write('POST /plants HTTP/1.1\r\nHost: a.test\r\nContent-Length: 100\r\n\r\n12');
    await delay(50);
    client.socket.destroy();
    const error = await withDeadline(failed.promise, 'the late body read to fail');
    assert.ok(error instanceof Error);
  });

  it('fails the body read with ERR_BODY_ALREADY_READ when the host consumed the body first', async () => {
    // An empty body here would pass for one the client never sent.
    const listener = toNodeListener(async (request) => {
      try {
        return Response.json({ body: await request.text() });
      } catch (error) {
        return Response.json({ code: (error as { code?: string }).code });
      }
    });
    const server = createServer((req, res) => {
      // What a body parser mounted before the listener (Express) does.
      req.resume();
      req.once('end', () => listener(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { body } = await send(`http://127.0.0.1:${port}/x`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: ['consumed'],
      });
      assert.deepEqual(JSON.parse(body), { code: 'ERR_BODY_ALREADY_READ' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('aborts request.signal when the client leaves before the handler answered, and not after a finished response', async () => {
    const entered = gate();
    const aborted = gate();
    let finishedRequest: Request | undefined;
    const server = await start(async (request) => {
      if (new URL(request.url).pathname === '/fine') {
        finishedRequest = request;
        return new Response('ok');
      }
      request.signal.addEventListener('abort', () => aborted.open());
      entered.open();
      await aborted.promise;
      return new Response('too late');
    });
    const client = await rawClient(server.port);
    client.socket.write('GET /slow HTTP/1.1\r\nHost: a.test\r\n\r\n');
    await withDeadline(entered.promise, 'the handler to start');
    client.socket.destroy();
    await withDeadline(aborted.promise, 'request.signal to abort');

    const { body } = await send(`${server.url}/fine`, { headers: { connection: 'close' } });
    assert.equal(body, 'ok');
    await delay(50);
    assert.equal(finishedRequest?.signal.aborted, false);
  });

  it('sends no body but the headers for HEAD and cancels the response body', async () => {
    const cancelled = gate();
    const server = await start(
      () =>
        new Response(
          new ReadableStream({
            pull: (controller) => controller.enqueue(new TextEncoder().encode('x'.repeat(1000))),
            cancel: () => cancelled.open(),
          }),
          { headers: { 'x-kind': 'fern' } },
        ),
    );
    const reply = await rawExchange(
      server.port,
      'HEAD /plants HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n',
    );
    const end = reply.indexOf('\r\n\r\n');
    assert.match(reply.slice(0, end), /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(reply.slice(0, end), /\r\nx-kind: fern/);
    assert.equal(reply.slice(end + 4), '');
    await withDeadline(cancelled.promise, 'the response body to be cancelled');
  });

  it('cancels the response body and survives when the client disconnects mid-stream', async () => {
    const reported: unknown[] = [];
    const cancelled = gate();
    const aborted = gate();
    const server = await start(
      (request) => {
        request.signal.addEventListener('abort', () => aborted.open());
        return new Response(
          new ReadableStream({
            pull: (controller) => controller.enqueue(new Uint8Array(16 * 1024)),
            cancel: () => cancelled.open(),
          }),
        );
      },
      // A throw inside onError would only reach stderr: collect, then assert.
      { onError: (error) => reported.push(error) },
    );
    const client = await rawClient(server.port);
    client.socket.write('GET /endless HTTP/1.1\r\nHost: a.test\r\n\r\n');
    await client.waitFor(/200 OK/, 'the stream to start');
    client.socket.destroy();
    await withDeadline(cancelled.promise, 'the response body to be cancelled');
    await withDeadline(aborted.promise, 'request.signal to abort');
    const { response } = await send(`${server.url}/x`, { method: 'HEAD' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(reported, [], 'a client that left is not an error');
  });

  it('keeps several Set-Cookie headers separate and passes the status text', async () => {
    const server = await start(() => {
      const headers = new Headers();
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2; Path=/');
      return new Response(null, { status: 201, statusText: 'Planted', headers });
    });
    const response = await withDeadline(fetch(server.url), 'fetch');
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Planted');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1; Path=/', 'b=2; Path=/']);
  });

  it('streams a response body only as fast as the client reads it', async () => {
    const chunk = new Uint8Array(64 * 1024);
    const total = 1024; // chunks: 64 MiB in all
    let produced = 0;
    const server = await start(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              if (produced === total) controller.close();
              else {
                produced++;
                controller.enqueue(chunk);
              }
            },
          }),
        ),
    );
    const received = await withDeadline(
      new Promise<number>((resolve, reject) => {
        httpRequest(server.url, (response) => {
          response.pause();
          // While the client does not read, the server must stop pulling the body.
          setTimeout(() => {
            try {
              assert.ok(produced < total / 2, `produced ${produced} of ${total} chunks unread`);
            } catch (error) {
              reject(error);
              return;
            }
            let bytes = 0;
            response.on('data', (data: Buffer) => {
              bytes += data.byteLength;
            });
            response.on('end', () => resolve(bytes));
            response.resume();
          }, 300);
        })
          .on('error', reject)
          .end();
      }),
      'the streamed response',
      DEADLINE_MS * 2,
    );
    assert.equal(received, total * chunk.byteLength);
  });

  it('stops reading the request body from the socket while the handler does not read', async () => {
    const firstChunk = gate();
    const server = await start(async (request) => {
      const reader = (request.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      firstChunk.open();
      await delay(1000);
      await reader.cancel();
      return new Response('stopped');
    });
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024);
    let written = 0;
    const req = httpRequest(`${server.url}/plants`, {
      method: 'POST',
      headers: { 'content-length': String(total) },
    });
    req.on('error', () => {});
    const stalled = await withDeadline(
      (async () => {
        while (written < total) {
          written += chunk.byteLength;
          if (!req.write(chunk)) {
            const drained = await Promise.race([
              new Promise((resolve) => req.once('drain', () => resolve(true))),
              delay(300).then(() => false),
            ]);
            if (!drained) return true;
          }
        }
        return false;
      })(),
      'the client to stall',
    );
    req.destroy();
    await withDeadline(firstChunk.promise, 'the handler to read');
    assert.ok(stalled, 'the client sent the whole body although the handler read one chunk');
    assert.ok(written < total / 2, `the server took ${written} bytes`);
  });

  it('answers 500 with the Error body and reports the error when the handler throws', async () => {
    const reported: unknown[] = [];
    const boom = new Error('boom: secret detail');
    const server = await start(
      (request) => {
        if (request.url.endsWith('/not-a-response')) return 'nope' as unknown as Response;
        throw boom;
      },
      { onError: (error) => reported.push(error) },
    );
    for (const path of ['/throws', '/not-a-response']) {
      const response = await withDeadline(fetch(server.url + path), 'fetch');
      assert.equal(response.status, 500);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(await response.json(), INTERNAL);
    }
    assert.equal(reported.length, 2);
    assert.equal(reported[0], boom);
    assert.ok(reported[1] instanceof TypeError);
  });

  it('still answers 500 when onError throws, and logs to console.error when no onError is given', async (t) => {
    const throwing = await start(
      () => {
        throw new Error('handler');
      },
      {
        onError: () => {
          throw new Error('onError broke too');
        },
      },
    );
    const response = await withDeadline(fetch(throwing.url), 'fetch');
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), INTERNAL);

    const logged = t.mock.method(console, 'error', () => {});
    const boom = new Error('logged');
    const quiet = await start(() => {
      throw boom;
    });
    assert.equal((await withDeadline(fetch(quiet.url), 'fetch')).status, 500);
    assert.equal(logged.mock.callCount(), 1);
    assert.equal(logged.mock.calls[0]?.arguments[0], boom);
  });

  it('destroys the connection and reports once when the response body fails after the headers', async () => {
    const reported: unknown[] = [];
    const server = await start(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('partial'));
            },
            async pull(controller) {
              // Late enough that the first chunk and the headers are on the wire.
              await delay(50);
              controller.error(new Error('stream broke'));
            },
          }),
        ),
      { onError: (error) => reported.push(error) },
    );
    const response = await withDeadline(fetch(server.url), 'fetch');
    assert.equal(response.status, 200);
    await assert.rejects(withDeadline(response.text(), 'the truncated body'));
    assert.equal(reported.length, 1);
    assert.equal((reported[0] as Error).message, 'stream broke');
    const next = await withDeadline(fetch(server.url), 'fetch after the failure');
    assert.equal(next.status, 200);
  });

  it('drains an unread request body so the connection serves the next request', async () => {
    const server = await start(() => new Response('ignored your body'));
    const client = await rawClient(server.port);
    const body = 'x'.repeat(200_000);
    client.socket.write(
      `POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        'GET /b HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n',
    );
    await withDeadline(client.closed, 'both responses');
    assert.equal(client.text().match(/HTTP\/1\.1 200 OK/g)?.length, 2);
  });

  it('closes the connection when an unread body exceeds maxDrainBytes or drainTimeout', async () => {
    const server = await start(() => new Response('no thanks'), {
      maxDrainBytes: 1024,
      drainTimeout: 200,
    });
    // Over the byte cap: the client keeps sending a 1 MB body.
    const big = await rawClient(server.port);
    big.socket.write('POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1000000\r\n\r\n');
    await big.waitFor(/no thanks/, 'the response before the body');
    big.socket.write('y'.repeat(4096));
    await withDeadline(big.closed, 'the connection to close over the byte cap', 1000);

    // Over the time cap: the client promises a body and stalls.
    const slow = await rawClient(server.port);
    slow.socket.write('POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 100\r\n\r\n12');
    await slow.waitFor(/no thanks/, 'the response before the body');
    await withDeadline(slow.closed, 'the connection to close over the time cap', 1000);
  });

  it('throws a TypeError when the handler or an option is invalid', async () => {
    assert.throws(() => toNodeListener(undefined as unknown as () => Response), TypeError);
    assert.throws(() => toNodeListener(echo, { maxDrainBytes: -1 }), TypeError);
    assert.throws(() => toNodeListener(echo, { drainTimeout: 1.5 }), TypeError);
  });

  it('throws a TypeError naming a misspelled option and the options it knows', () => {
    // A misspelled option would otherwise keep its default without a word.
    assert.throws(() => toNodeListener(echo, { drainTimeot: 100 } as object), {
      name: 'TypeError',
      message: /toNodeListener: unknown option "drainTimeot" \(known: .*drainTimeout/,
    });
    // serve's own options are not the listener's.
    assert.throws(() => toNodeListener(echo, { port: 0 } as object), TypeError);
  });
});
