/**
 * `serve` against the rules of RFC 9112 (HTTP/1.1 message syntax and connection management)
 * that a server must follow, section by section, over raw sockets: what a careful or hostile
 * client can send, and what the server must answer. Each `describe` names its section; a rule
 * that node's parser (llhttp) already enforces still gets a test, since the answer must be
 * plant-store's Error body. Rules with no test say why below.
 *
 * Rules a server must follow that need no test here:
 * - 2.3 (HTTP version): a server answers with its own major version; node writes HTTP/1.1.
 * - 4 (status line): written by node from the status the handler chose.
 * - 5.3 (field order), 5.5 (field values): a server may not rely on order; nothing here does,
 *   and values reach the handler as sent (the runtime case list checks what the store reads).
 * - 6.2 (Content-Length on responses): node writes it from the body the handler gave.
 * - 7.2 (trailer fields): a server may discard them; plant-store does (the malformed-trailer case
 *   below pins the framing rule).
 * - 9.4 (concurrency), 9.5 (failures and timeouts): `test/node/faults.test.ts` (floods, slowloris,
 *   idle keep-alive connections, clients that leave).
 * - 9.8 (TLS close): `serve` speaks plain HTTP; TLS is a proxy's.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PlantRepository } from '../../lib/index.ts';
import { createMemoryRepository } from '../../lib/index.ts';
import { type ServeHandle, serve } from '../../lib/node.ts';
import { recordingRepository, TOKEN, testStore } from '../support/fakes.ts';
import { checkRaw } from '../support/fault-helpers.ts';
import {
  delay,
  parseRawResponse,
  type RawClient,
  rawClient,
  splitResponses,
  withDeadline,
} from '../support/node-helpers.ts';
import { assertMatchesOpenApi } from '../support/openapi.ts';

const HOST = 'Host: 127.0.0.1\r\n';
const JSON_TYPE = 'Content-Type: application/json\r\n';
const BEARER = `Authorization: Bearer ${TOKEN}\r\n`;

/** The raw bytes of a create, with extra header lines. */
function create(id: number, extra = '', version = 'HTTP/1.1', name = `p${id}`): string {
  const body = `{"id":${id},"name":"${name}"}`;
  return `POST /plants ${version}\r\n${HOST}${BEARER}${JSON_TYPE}Content-Length: ${body.length}\r\n${extra}\r\n${body}`;
}

/** A chunked create: the head, then the body in the given chunks, then the last chunk. */
function chunkedCreate(id: number, sizes: readonly number[] = [], extra = ''): string {
  const body = `{"id":${id},"name":"p${id}"}`;
  let chunks = '';
  let at = 0;
  for (const size of sizes.length === 0 ? [body.length] : sizes) {
    const part = body.slice(at, at + size);
    at += size;
    if (part !== '') chunks += `${part.length.toString(16)}\r\n${part}\r\n`;
  }
  return `POST /plants HTTP/1.1\r\n${HOST}${BEARER}${JSON_TYPE}Transfer-Encoding: chunked\r\n${extra}\r\n${chunks}0\r\n\r\n`;
}

let handle: ServeHandle;
let stored: () => number;
const errors: unknown[] = [];
let release: (() => void) | undefined;

before(async () => {
  const memory = createMemoryRepository();
  // A repository that answers with a promise, as PostgreSQL does; a plant named "slow" waits
  // until the test releases it.
  const repository: PlantRepository = {
    async create(plant, context) {
      if (plant.name === 'slow') await new Promise<void>((resolve) => (release = resolve));
      return memory.create(plant, context);
    },
  };
  const recorded = recordingRepository(repository);
  const { store } = testStore({ repository: recorded, onError: (error) => errors.push(error) });
  stored = () => recorded.create.mock.callCount();
  handle = await serve({ fetch: store.fetch, port: 0 });
});

after(async () => {
  release?.();
  await handle.close();
  assert.deepEqual(errors, [], 'no client mistake is reported as a server error');
});

/** Sends bytes on a new connection and waits until the server closes it. */
async function untilClosed(payload: string | string[]): Promise<string> {
  const client = await rawClient(handle.port);
  for (const part of Array.isArray(payload) ? payload : [payload]) {
    client.socket.write(part);
    await delay(10);
  }
  await withDeadline(client.closed, 'the server to close the connection');
  return client.text();
}

/**
 * The answers on a connection, each checked against the OpenAPI document: as a `404` or `405`
 * of the router's components, or as a response of `POST /plants`.
 */
async function answers(text: string): Promise<Array<{ status: number; body: unknown }>> {
  return Promise.all(
    splitResponses(text)
      .filter((response) => !response.startsWith('HTTP/1.1 100'))
      .map(async (response) => {
        const raw = parseRawResponse(response);
        if (raw.status !== 404 && raw.status !== 405) return checkRaw(response);
        const where = raw.status === 404 ? 'NotFound' : 'MethodNotAllowed';
        const web = new Response(raw.body, { status: raw.status, headers: [...raw.headers] });
        return { status: raw.status, body: await assertMatchesOpenApi(web, where) };
      }),
  );
}

/** Whether a raw response says the connection closes. */
function saysClose(text: string): boolean {
  return parseRawResponse(text).headers.get('connection') === 'close';
}

/** Waits for `count` complete answers on an open connection. */
async function waitAnswers(client: RawClient, count: number): Promise<string> {
  await withDeadline(
    (async () => {
      while (splitResponses(client.text()).filter((r) => /\r\n\r\n/.test(r)).length < count) {
        await delay(5);
      }
    })(),
    `${count} answers`,
  );
  return client.text();
}

const BAD_REQUEST = { error: 400, message: 'malformed request' };

describe('RFC 9112 section 2: message format', () => {
  it('answers 400 with the Error body to a request line that is not one (2.2)', async () => {
    // llhttp is lenient with repeated spaces, as RFC 9112 allows; these it must refuse.
    for (const line of [
      'GET /openapi.json HTTP/1.1 extra',
      'GET /openapi.json HTP/1.1',
      'GET /openapi.json HTTP/1.x',
      '/openapi.json HTTP/1.1',
      'G@T /openapi.json HTTP/1.1',
      'GET /\tHTTP/1.1',
    ]) {
      const text = await untilClosed(`${line}\r\n${HOST}\r\n`);
      assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }], line);
      assert.ok(saysClose(text), line);
    }
  });

  it('answers 400 to a bare CR or LF where a line must end with CRLF (2.2)', async () => {
    for (const payload of [
      `GET /openapi.json HTTP/1.1\r\nHost: a\rX: y\r\n\r\n`,
      `GET /openapi.json HTTP/1.1\r\n${HOST}X: \ry\r\n\r\n`,
    ]) {
      const text = await untilClosed(payload);
      assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }]);
    }
  });
});

describe('RFC 9112 section 3: request line and Host', () => {
  it('routes CONNECT (authority-form) like any other method: 404, then close (3.2.3)', async () => {
    const text = await untilClosed('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    assert.deepEqual(await answers(text), [
      { status: 404, body: { error: 404, message: 'not found' } },
    ]);
  });

  it('routes TRACE like any other method: 405 with Allow on /plants, 404 elsewhere', async () => {
    const client = await rawClient(handle.port);
    client.socket.write(`TRACE /plants HTTP/1.1\r\n${HOST}\r\nTRACE /x HTTP/1.1\r\n${HOST}\r\n`);
    const text = await waitAnswers(client, 2);
    const [plants, other] = splitResponses(text);
    assert.equal(parseRawResponse(plants ?? '').status, 405);
    assert.equal(parseRawResponse(plants ?? '').headers.get('allow'), 'POST');
    assert.equal(parseRawResponse(other ?? '').status, 404);
    client.socket.destroy();
  });

  it('answers 400 to a request without Host, and to one with two, however deep (3.2)', async () => {
    const before = stored();
    const filler = 'X-Filler: 1\r\n'.repeat(1100);
    for (const payload of [
      'GET /openapi.json HTTP/1.1\r\n\r\n',
      `${create(1).replace(HOST, `${HOST}${filler}Host: other.test\r\n`)}`,
    ]) {
      const text = await untilClosed(payload);
      assert.deepEqual(await answers(text), [
        { status: 400, body: { error: 400, message: 'the Host header is missing or not valid' } },
      ]);
    }
    assert.equal(stored(), before, 'nothing stored');
  });
});

describe('RFC 9112 section 5: field syntax', () => {
  it('answers 400 to whitespace between a field name and its colon (5.1)', async () => {
    const text = await untilClosed(`GET /openapi.json HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n`);
    assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }]);
  });

  it('answers 400 to an obsolete line folding (5.2)', async () => {
    const text = await untilClosed(
      `GET /openapi.json HTTP/1.1\r\n${HOST}X-A: 1\r\n  folded\r\n\r\n`,
    );
    assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }]);
  });

  it('sees every header line: a second Authorization after 1,100 others is a 401', async () => {
    const before = stored();
    const filler = 'X-Filler: 1\r\n'.repeat(1100);
    const client = await rawClient(handle.port);
    client.socket.write(create(2, `${filler}Authorization: Bearer other\r\n`));
    const text = await waitAnswers(client, 1);
    assert.deepEqual(await answers(text), [
      { status: 401, body: { error: 401, message: 'a bearer token is required' } },
    ]);
    client.socket.destroy();
    assert.equal(stored(), before, 'nothing stored');
  });

  it('serves a create whose Authorization comes after 1,100 other lines', async () => {
    const filler = 'X-Filler: 1\r\n'.repeat(1100);
    const text = await untilClosed(
      create(3, `Connection: close\r\n`).replace(BEARER, `${filler}${BEARER}`),
    );
    assert.deepEqual(await answers(text), [{ status: 200, body: { name: 'p3' } }]);
  });
});

describe('RFC 9112 section 6: message body', () => {
  it('answers 400, then closes, when the final transfer coding is not chunked (6.3)', async () => {
    const before = stored();
    for (const coding of ['gzip', 'chunked, gzip', 'chunked, chunked']) {
      const text = await untilClosed(
        `POST /plants HTTP/1.1\r\n${HOST}${BEARER}${JSON_TYPE}Transfer-Encoding: ${coding}\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
      );
      // Node's parser refuses some of these itself; either way one Error body, then close.
      const [answer, ...more] = await answers(text);
      assert.equal(answer?.status, 400, coding);
      assert.deepEqual(more, [], coding);
      assert.ok(saysClose(text), coding);
    }
    assert.equal(stored(), before, 'nothing stored');
  });

  it('answers 501, then closes, to a transfer coding it does not implement (6.1)', async () => {
    const before = stored();
    // Node would take the dechunked body as plain JSON: a gzip body would be misread.
    const text = await untilClosed(chunkedCreate(4).replace('chunked', 'gzip, chunked'));
    assert.deepEqual(await answers(text), [
      {
        status: 501,
        body: { error: 501, message: 'transfer coding not implemented: gzip (only chunked is)' },
      },
    ]);
    assert.ok(saysClose(text));
    assert.equal(stored(), before, 'nothing stored');
  });

  it('answers 400 to a request with both Transfer-Encoding and Content-Length (6.3)', async () => {
    const before = stored();
    const text = await untilClosed(
      chunkedCreate(5).replace('Transfer-Encoding', 'Content-Length: 3\r\nTransfer-Encoding'),
    );
    assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }]);
    assert.equal(stored(), before, 'nothing stored');
  });

  it('answers 400 to two Content-Length lines, and to one that is no number (6.3)', async () => {
    const before = stored();
    for (const lengths of [
      'Content-Length: 21\r\nContent-Length: 22\r\n',
      'Content-Length: 2x\r\n',
    ]) {
      const text = await untilClosed(
        `POST /plants HTTP/1.1\r\n${HOST}${BEARER}${JSON_TYPE}${lengths}\r\n{"id":6,"name":"p6"}`,
      );
      assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }], lengths);
    }
    assert.equal(stored(), before, 'nothing stored');
  });

  it('reads a chunked body in many chunks and with chunk extensions (7.1)', async () => {
    const text = await untilClosed(
      chunkedCreate(7, [1, 3, 5, 50], 'Connection: close\r\n').replace(
        '\r\n1\r\n',
        '\r\n1;ext=v\r\n',
      ),
    );
    assert.deepEqual(await answers(text), [{ status: 200, body: { name: 'p7' } }]);
  });

  it('answers a 413 for a declared body over the limit with Connection: close, then closes', async () => {
    const head = `POST /plants HTTP/1.1\r\n${HOST}${BEARER}${JSON_TYPE}Content-Length: 200000\r\n\r\n`;
    const text = await untilClosed(head);
    const [answer] = await answers(text);
    assert.equal(answer?.status, 413);
    assert.ok(saysClose(text), 'a 413 says the connection closes');
  });
});

describe('RFC 9112 section 7: chunked transfer coding', () => {
  it('answers a malformed chunk exactly once, then closes (7.1)', async () => {
    const before = stored();
    // Without a token the 401 goes out before the bad chunk is read: no second answer follows.
    const noToken = await untilClosed(
      `POST /plants HTTP/1.1\r\n${HOST}${JSON_TYPE}Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`,
    );
    assert.deepEqual(
      (await answers(noToken)).map(({ status }) => status),
      [401],
    );
    // With one, the store is reading the body: the framing error is its one answer.
    const withToken = await untilClosed([
      `POST /plants HTTP/1.1\r\n${HOST}${BEARER}${JSON_TYPE}Transfer-Encoding: chunked\r\n\r\n`,
      '3\r\n{"i\r\nZZ\r\n',
    ]);
    assert.deepEqual(await answers(withToken), [{ status: 400, body: BAD_REQUEST }]);
    assert.equal(stored(), before, 'nothing stored');
  });

  it('answers a malformed trailer section once, with 400, then closes (7.1.2)', async () => {
    const before = stored();
    const text = await untilClosed(
      chunkedCreate(8).replace(/0\r\n\r\n$/, '0\r\nBad Trailer\r\n\r\n'),
    );
    assert.deepEqual(await answers(text), [{ status: 400, body: BAD_REQUEST }]);
    assert.equal(stored(), before, 'nothing stored');
  });

  it('closes an unread chunked body at once, whatever its chunking costs', async () => {
    // A refused chunked body is not drained: one-byte chunks would cost the server parsing time
    // six times the body's size.
    const client = await rawClient(handle.port);
    client.socket.write(
      `POST /plants HTTP/1.1\r\n${HOST}${JSON_TYPE}Transfer-Encoding: chunked\r\n\r\n`,
    );
    const text = await waitAnswers(client, 1);
    assert.equal(parseRawResponse(text).status, 401);
    assert.ok(saysClose(text), 'the 401 says the connection closes');
    for (let i = 0; i < 200 && !client.socket.destroyed; i++) client.socket.write('1\r\n \r\n');
    await withDeadline(client.closed, 'the connection to close');
  });
});

describe('RFC 9112 section 8: incomplete messages', () => {
  it('answers a complete request whose client half-closes at once, while the store waits (8, 9.6)', async () => {
    const client = await rawClient(handle.port);
    client.socket.end(create(9, '', 'HTTP/1.1', 'slow'));
    await delay(50);
    release?.();
    await withDeadline(client.closed, 'the answer and the close');
    assert.deepEqual(await answers(client.text()), [{ status: 200, body: { name: 'slow' } }]);
  });

  it('answers 400 once, then closes, when the input ends inside a body (8)', async () => {
    const client = await rawClient(handle.port);
    client.socket.end(create(10).slice(0, -4));
    await withDeadline(client.closed, 'the answer and the close');
    assert.deepEqual(await answers(client.text()), [{ status: 400, body: BAD_REQUEST }]);
  });
});

describe('RFC 9112 section 9: connection management', () => {
  it('keeps an HTTP/1.1 connection and answers pipelined requests in order (9.3, 9.3.2)', async () => {
    const client = await rawClient(handle.port);
    client.socket.write(create(11) + create(12) + create(11) + create(13));
    const text = await waitAnswers(client, 4);
    assert.deepEqual(
      (await answers(text)).map(({ status, body }) => [status, body]),
      [
        [200, { name: 'p11' }],
        [200, { name: 'p12' }],
        [200, { name: 'p11' }],
        [200, { name: 'p13' }],
      ],
    );
    assert.equal(client.socket.destroyed, false, 'the connection stays open');
    client.socket.destroy();
  });

  it('answers a Connection: close request, then closes, and never executes what follows (9.6)', async () => {
    const before = stored();
    const text = await untilClosed(
      `${create(14, 'Connection: close\r\n')}${create(15)}GARBAGE\r\n\r\n`,
    );
    assert.deepEqual(await answers(text), [{ status: 200, body: { name: 'p14' } }]);
    assert.ok(saysClose(text));
    assert.equal(stored(), before + 1, 'the request after it was not executed');
  });

  it('answers an HTTP/1.0 request, then closes, and never executes what follows (9.3)', async () => {
    const before = stored();
    const text = await untilClosed(`${create(16, '', 'HTTP/1.0')}${create(17)}`);
    assert.deepEqual(await answers(text), [{ status: 200, body: { name: 'p16' } }]);
    assert.equal(stored(), before + 1, 'the request after it was not executed');
  });

  it('answers a create before the malformed bytes behind it, each once, then closes (9.6)', async () => {
    // The store still waits for its repository when the parser rejects the trailing bytes.
    const client = await rawClient(handle.port);
    client.socket.write(`${create(18, '', 'HTTP/1.1', 'slow')}BOGUS LINE\r\n\r\n`);
    await delay(50);
    release?.();
    await withDeadline(client.closed, 'both answers and the close');
    const [created, rejected] = splitResponses(client.text());
    assert.deepEqual(await checkRaw(created ?? ''), { status: 200, body: { name: 'slow' } });
    assert.deepEqual(await checkRaw(rejected ?? ''), { status: 400, body: BAD_REQUEST });
    assert.ok(saysClose(rejected ?? ''));
  });

  it('answers a request carrying Upgrade, then closes, never leaving one unanswered (9.6)', async () => {
    const before = stored();
    const text = await untilClosed(
      create(19, 'Connection: upgrade\r\nUpgrade: websocket\r\n') + create(20),
    );
    assert.deepEqual(await answers(text), [{ status: 200, body: { name: 'p19' } }]);
    assert.ok(saysClose(text));
    assert.equal(stored(), before + 1);
  });
});

describe('RFC 9110 section 10.1.1: Expect: 100-continue', () => {
  const expecting = (extra: string) =>
    `POST /plants HTTP/1.1\r\n${HOST}${JSON_TYPE}Expect: 100-continue\r\nContent-Length: 20\r\n${extra}\r\n`;

  it('answers a request the headers refuse with its final status, no 100, then closes', async () => {
    for (const [extra, status] of [
      ['', 401],
      ['Authorization: Bearer nope\r\n', 401],
      [`${BEARER}`.replace('Bearer', 'Basic'), 401],
    ] as const) {
      const text = await untilClosed(expecting(extra));
      assert.doesNotMatch(text, /^HTTP\/1\.1 100/, 'no 100 Continue before the refusal');
      assert.equal(parseRawResponse(text).status, status);
      assert.ok(saysClose(text), 'the body never sent, the connection closes');
    }
    const tooLarge = await untilClosed(
      expecting(BEARER).replace('Content-Length: 20', 'Content-Length: 200000'),
    );
    assert.doesNotMatch(tooLarge, /^HTTP\/1\.1 100/);
    assert.equal(parseRawResponse(tooLarge).status, 413);
    const wrongType = await untilClosed(
      expecting(BEARER).replace(JSON_TYPE, 'Content-Type: text/plain\r\n'),
    );
    assert.equal(parseRawResponse(wrongType).status, 415);
  });

  it('sends 100 Continue once the headers pass, then the final answer', async () => {
    const client = await rawClient(handle.port);
    client.socket.write(expecting(BEARER));
    await client.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '100 Continue');
    client.socket.write('{"id":21,"name":"pp"}'.slice(0, 20).padEnd(20, ' '));
    const text = await waitAnswers(client, 2);
    const final = splitResponses(text)[1] ?? '';
    assert.equal(parseRawResponse(final).status, 400, 'the body was read and judged');
    client.socket.destroy();
  });
});
