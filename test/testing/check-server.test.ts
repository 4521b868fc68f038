import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { checkServer, ConformanceError, type ConformanceReport } from '../../lib/testing.ts';
import { listen } from '../support/node-helpers.ts';
import {
  bodyBeforeToken,
  leaksStacks,
  losesInt64Precision,
  type RunningServer,
  servesAnOldDocument,
} from './mistaken-servers.ts';

const TOKEN = 'conform-test-token';
const servers: RunningServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

async function start(server: Promise<RunningServer>): Promise<string> {
  const running = await server;
  servers.push(running);
  return running.url;
}

/** The messages of the failures, each checked to begin with its check's rule. */
function messages(report: ConformanceReport): string[] {
  for (const { name, error } of report.failed) {
    assert.ok(error.message.startsWith(`${name.split(': ')[0]}`), `${name}: ${error.message}`);
  }
  return report.failed.map(({ error }) => error.message);
}

describe('checkServer', () => {
  it('passes every check when the server is a plant store behind the Node adapter', async () => {
    const store = createPlantStore({ verifier: createStaticTokenVerifier([TOKEN]) });
    const url = await start(listen(store.fetch));
    const ids: string[] = [];
    const streamed: string[] = [];
    const report = await checkServer({
      baseUrl: `${url}/`,
      token: TOKEN,
      onIds: (line) => ids.push(line),
      onResult: ({ name }) => streamed.push(name),
    });
    assert.deepEqual(messages(report), []);
    assert.equal(report.passed.length, 35);
    assert.deepEqual(streamed, report.passed);
    assert.match(ids[0] ?? '', /^ids (\d+)\.\.(\d+), /);
    // A second run replays the fixed ids and writes a fresh range.
    const again = await checkServer({
      baseUrl: url,
      token: TOKEN,
      onIds: (line) => ids.push(line),
    });
    assert.deepEqual(messages(again), []);
    assert.notEqual(ids[0]?.split(',')[0], ids[1]?.split(',')[0]);
  });

  it('names the authentication rule when the server answers 400 for a missing body before 401', async () => {
    const report = await checkServer({
      baseUrl: await start(bodyBeforeToken(TOKEN)),
      token: TOKEN,
    });
    assert.deepEqual(messages(report), [
      `2. authentication: POST /plants (no Authorization, Content-Type application/json, no body) answered 400; expected 401 (body {"error":400,"message":"request body is required"})`,
    ]);
  });

  it('names the int64 rule when the server loses precision past 2^53', async () => {
    const report = await checkServer({
      baseUrl: await start(losesInt64Precision(TOKEN)),
      token: TOKEN,
    });
    const failed = report.failed.map(({ name }) => name.split(' (')[0]);
    assert.deepEqual(failed, [
      '7. shape: answers 400 when the id is missing or not an integer',
      'int64: keeps neighbouring ids apart at the top of the range',
      'int64: keeps neighbouring ids apart at the bottom of the range',
      'int64: keeps neighbouring ids apart near 2^62',
      'int64: keeps neighbouring ids apart near -2^62',
      'int64: tells replay from conflict past 2^53, at ids a double cannot tell apart',
    ]);
    const [, a, b] = /\((\d+), (\d+)\)$/.exec(report.failed[5]?.name ?? '') ?? [];
    assert.equal(BigInt(b ?? 0) - BigInt(a ?? 0), 1n);
    assert.equal(
      messages(report)[5],
      `int64: id ${b} answered 409 though plant-store conform only ever sends it as plant-store conform ${b}, and the server holds plant-store conform ${a} under it: it files ${a} and ${b} as one id, so it loses int64 precision`,
    );
  });

  for (const [title, held] of [
    ['the first of a pair', '9223372036854775807'],
    ['the second of a pair', '9223372036854775806'],
  ]) {
    it(`says a fixed id was already taken, not that precision was lost, when the server held another plant under ${title}`, async () => {
      const store = createPlantStore({ verifier: createStaticTokenVerifier([TOKEN]) });
      const url = await start(listen(store.fetch));
      const seeded = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"id": ${held}, "name": "a plant of the host's own"}`,
      });
      assert.equal(seeded.status, 200);
      const report = await checkServer({ baseUrl: url, token: TOKEN });
      assert.deepEqual(messages(report), [
        `int64: id ${held} was already taken: the server holds a plant under it that plant-store conform did not write (it writes it only as plant-store conform ${held}), so this check cannot run there; run it against a store where this id is free`,
      ]);
    });
  }

  it('names the Error body rule of each step when error bodies carry a stack', async () => {
    const report = await checkServer({ baseUrl: await start(leaksStacks(TOKEN)), token: TOKEN });
    assert.equal(report.passed.length, 35 - report.failed.length);
    assert.equal(report.failed.length, 22);
    for (const message of messages(report)) assert.match(message, /^[^:]+ \(Error body\): /);
    assert.equal(
      report.failed[0]?.error.message,
      'routes (Error body): GET /plant-store-conform-' +
        (report.failed[0]?.error.message.match(/conform-(\w+)/)?.[1] ?? '') +
        ' (no Authorization, no Content-Type, no body) answered 404 with the body "{\\"error\\":404,\\"message\\":\\"not found\\",\\"stack\\":\\"Error: at create\\"}"; expected exactly {"error": 404, "message": "<text>"}',
    );
  });

  it('names the openapi rule with each problem when the document is not 3.1 or has no int64 id', async () => {
    const report = await checkServer({
      baseUrl: await start(servesAnOldDocument(TOKEN)),
      token: TOKEN,
    });
    assert.deepEqual(messages(report), [
      'openapi: the document says openapi "3.0.3", not 3.1.x; has no NewPlant with an int64 integer id',
    ]);
  });

  it('reports one failure, that the server cannot be reached, and checks nothing more when nothing listens', async () => {
    const closed = await listen(() => new Response());
    await closed.close();
    const ids: string[] = [];
    const streamed: string[] = [];
    const report = await checkServer({
      baseUrl: closed.url,
      token: TOKEN,
      onIds: (line) => ids.push(line),
      onResult: ({ name }) => streamed.push(name),
    });
    assert.deepEqual(report.passed, []);
    assert.deepEqual(report.skipped, []);
    assert.deepEqual(
      report.failed.map(({ name, error }) => [
        name,
        (error as ConformanceError).rule,
        (error as ConformanceError).detail,
        error.message,
      ]),
      [
        [
          'reach: answers a first request at the base URL',
          'reach',
          `cannot reach ${closed.url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${closed.port})`,
          `reach: cannot reach ${closed.url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${closed.port})`,
        ],
      ],
    );
    assert.ok(report.failed[0]?.error instanceof ConformanceError);
    assert.deepEqual(streamed, ['reach: answers a first request at the base URL']);
    assert.deepEqual(ids, []);
  });

  it('reports one failure, that the token was refused, and sends nothing more when the first authorized request is answered 401', async () => {
    const store = createPlantStore({ verifier: createStaticTokenVerifier(['another-token']) });
    const requests: string[] = [];
    const url = await start(
      listen((request) => {
        requests.push(`${request.method} ${new URL(request.url).pathname}`);
        return store.fetch(request);
      }),
    );
    const report = await checkServer({ baseUrl: url, token: TOKEN });
    assert.deepEqual(report.passed, []);
    assert.deepEqual(
      report.failed.map(({ name, error }) => [
        name,
        (error as ConformanceError).rule,
        error.message,
      ]),
      [
        [
          'token: accepts the token it was given',
          'token',
          'token: the token was refused: POST /plants with it answered 401 (body {"error":401,"message":"the bearer token is not valid"})',
        ],
      ],
    );
    // The one request: authorized, without a body, so that it writes nothing.
    assert.deepEqual(requests, ['POST /plants']);
  });

  it('throws a TypeError that does not quote the token when it cannot be a bearer token', async () => {
    for (const token of ['to ken', 'line\nbreak', 'tökén', '=first']) {
      await assert.rejects(checkServer({ baseUrl: 'http://x', token }), (error: Error) => {
        assert.equal(error.name, 'TypeError');
        assert.equal(
          error.message,
          'checkServer: token must be a bearer token (RFC 6750 b64token: letters, digits, -._~+/, then optional =)',
        );
        return true;
      });
    }
  });

  it('throws a TypeError when the base URL is not http, the token is empty or a number is out of range', async () => {
    await assert.rejects(checkServer({ baseUrl: 'ftp://x', token: TOKEN }), {
      name: 'TypeError',
      message: 'checkServer: baseUrl must be an http or https URL, got ftp://x',
    });
    await assert.rejects(checkServer({ baseUrl: 'http://[::1', token: TOKEN }), {
      name: 'TypeError',
      message: 'checkServer: baseUrl must be an http or https URL, got http://[::1',
    });
    await assert.rejects(checkServer({ baseUrl: 'http://x', token: '' }), {
      name: 'TypeError',
      message: 'checkServer: token must be a token the server accepts',
    });
    await assert.rejects(checkServer({ baseUrl: 'http://x', token: TOKEN, maxBodyBytes: 10 }), {
      name: 'TypeError',
      message: 'checkServer: maxBodyBytes must be an integer of at least 64, got 10',
    });
    await assert.rejects(checkServer({ baseUrl: 'http://x', token: TOKEN, firstId: 5n }), {
      name: 'TypeError',
      message: 'checkServer: firstId must be a bigint from 2^40 to 2^52, got 5',
    });
  });
});
