import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPlantClient, PlantClientError } from '../../lib/client.ts';
import { errorAnswer, scriptedFetch } from '../support/client-helpers.ts';
import { TOKEN } from '../support/fakes.ts';
import { listen, withDeadline } from '../support/node-helpers.ts';

const BASE = 'http://127.0.0.1:1';
const PLANT = { id: 1n, name: 'Fern' };

function clientOf(...answers: Parameters<typeof scriptedFetch>) {
  const scripted = scriptedFetch(...answers);
  const client = createPlantClient({
    baseUrl: BASE,
    token: TOKEN,
    fetch: scripted.fetch,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 20 },
  });
  return { client, requests: scripted.requests };
}

async function refusal(promise: Promise<unknown>): Promise<PlantClientError> {
  const error = await promise.then(
    () => assert.fail('resolved'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof PlantClientError, String(error));
  return error;
}

describe('createPlant answers', () => {
  it('rejects with the status, the Error body, the request id and Retry-After when the server answers an error', async () => {
    const { client } = clientOf(errorAnswer(400, { 'x-request-id': 'req-7', 'retry-after': '30' }));
    const error = await refusal(client.createPlant(PLANT));
    assert.deepEqual(
      {
        code: error.code,
        name: error.name,
        status: error.status,
        error: error.error,
        message: error.message,
        requestId: error.requestId,
        retryAfter: error.retryAfter,
      },
      {
        code: 'ERR_STATUS',
        name: 'PlantClientError',
        status: 400,
        error: 400,
        message: 'status 400',
        requestId: 'req-7',
        retryAfter: 30,
      },
    );
  });

  it('rejects with its own error, never resolving undefined, when a 200 is not a Plant', async () => {
    const bodies: Array<[BodyInit, RegExp]> = [
      ['<html>signed out</html>', /\(200\) is not UTF-8 JSON/],
      ['', /is not UTF-8 JSON/],
      [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), /is not UTF-8 JSON/],
      ['{"id": 1}', /\(200\) is not the plant sent: its name differs/],
      ['{"name": 7}', /its name differs/],
      ['{"name": "Fern", "tag": null}', /its tag differs/],
      ['["Fern"]', /its name differs/],
      ['null', /its name differs/],
    ];
    for (const [body, message] of bodies) {
      const { client, requests } = clientOf(new Response(body, { status: 200 }));
      const error = await refusal(client.createPlant(PLANT));
      assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
      assert.equal(error.status, 200);
      assert.match(error.message, message);
      assert.equal(requests.length, 1, 'a 200 is never retried');
    }
  });

  it('keeps only the declared fields of a Plant', async () => {
    const { client } = clientOf(Response.json({ name: 'Fern', tag: 'a', id: 1, admin: true }));
    assert.deepEqual(await client.createPlant({ ...PLANT, tag: 'a' }), { name: 'Fern', tag: 'a' });
  });

  it('rejects a 200 whose plant is not the one sent, naming the field and not the values', async () => {
    // A 200 means stored exactly as sent, or its replay: another plant is no store's word on this one.
    const sent = { id: 1n, name: 'Fern', tag: 'indoor' };
    const cases: Array<[object, object, RegExp]> = [
      [sent, { name: 'Ivy-x', tag: 'indoor' }, /\(200\) is not the plant sent: its name differs/],
      [sent, { name: 'Fern', tag: 'outdoor-x' }, /its tag differs/],
      [sent, { name: 'Fern' }, /its tag differs/],
      [PLANT, { name: 'Fern', tag: 'indoor-x' }, /its tag differs/],
      [PLANT, { name: 'fern' }, /its name differs/],
    ];
    for (const [plant, answer, message] of cases) {
      const { client, requests } = clientOf(Response.json(answer));
      const error = await refusal(client.createPlant(plant as typeof sent));
      assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
      assert.equal(error.status, 200);
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /Fern|Ivy|door/i, 'the message echoes a value');
      assert.equal(requests.length, 1, 'a 200 is never retried');
    }
  });

  it('rejects any 2xx but 200, without retrying, though its body is the Plant', async () => {
    for (const status of [201, 202, 203, 204, 206]) {
      const body = status === 204 ? null : JSON.stringify({ name: 'Fern' });
      const { client, requests } = clientOf(new Response(body, { status }));
      const error = await refusal(client.createPlant(PLANT));
      assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
      assert.equal(error.status, status);
      assert.match(error.message, new RegExp(`\\(${status}\\) is not the contract's 200`));
      assert.equal(requests.length, 1, `${status} was retried`);
    }
  });

  it('rejects a redirect naming its Location, neither following nor retrying it, from a real server', async () => {
    // Followed, a 302 reaches a page whose Plant-shaped 200 no store sent, and a 307 or 308
    // cannot send the body again: the fix is the caller's baseUrl.
    const seen: string[] = [];
    let status = 0;
    const server = await listen(async (request) => {
      const { pathname } = new URL(request.url);
      seen.push(`${request.method} ${pathname}`);
      if (pathname !== '/plants') return Response.json({ name: 'Fern' });
      return new Response('moved', { status, headers: { location: '/v1/plants' } });
    });
    try {
      for (status of [301, 302, 303, 307, 308]) {
        seen.length = 0;
        const client = createPlantClient({
          baseUrl: server.url,
          token: TOKEN,
          retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 20 },
        });
        const error = await refusal(withDeadline(client.createPlant(PLANT), `a ${status}`));
        assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
        assert.equal(error.status, status);
        assert.match(error.message, new RegExp(`\\(${status}\\) redirects to /v1/plants`));
        assert.deepEqual(seen, ['POST /plants'], `${status}: followed or retried`);
      }
    } finally {
      await server.close();
    }
  });

  it('rejects with its own error carrying the status when an error answer has no Error body', async () => {
    const { client, requests } = clientOf(
      new Response('<h1>Forbidden</h1>', { status: 403, headers: { 'x-request-id': 'r1' } }),
    );
    const error = await refusal(client.createPlant(PLANT));
    assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
    assert.equal(error.status, 403);
    assert.equal(error.requestId, 'r1');
    assert.match(error.message, /\(403\) is not UTF-8 JSON/);
    assert.equal(requests.length, 1);
    const shaped = await refusal(
      clientOf(Response.json({ error: 'nope' }, { status: 404 })).client.createPlant(PLANT),
    );
    assert.match(shaped.message, /\(404\) is not an Error body \{ error, message \}/);
  });

  it('stops reading and cancels the body when an answer is larger than the cap', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const { client } = clientOf(() => new Response(endless, { status: 200 }));
    const error = await refusal(client.createPlant(PLANT));
    assert.match(error.message, /\(200\) is over 1048576 bytes/);
    assert.ok(pulled <= 1024 * 1024 + 2 * 64 * 1024, `read ${pulled} bytes`);
    assert.ok(cancelled, 'the body was not cancelled');
  });

  it('refuses without reading a body whose Content-Length is over the cap, from a real server', async () => {
    let written = 0;
    const server = await listen(async () => {
      const chunk = new Uint8Array(256 * 1024);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          written += chunk.byteLength;
          controller.enqueue(chunk);
          if (written >= 64 * 1024 * 1024) controller.close();
        },
      });
      return new Response(body, { headers: { 'content-length': String(64 * 1024 * 1024) } });
    });
    try {
      const client = createPlantClient({ baseUrl: server.url, token: TOKEN });
      const error = await refusal(client.createPlant(PLANT));
      assert.equal(error.code, 'ERR_UNEXPECTED_RESPONSE');
      assert.match(error.message, /is over 1048576 bytes/);
      assert.ok(written < 16 * 1024 * 1024, `the server wrote ${written} bytes`);
    } finally {
      await server.close();
    }
  });

  it('rejects with a TypeError, without retrying, when fetch resolves to something that is not a Response', async () => {
    const { client, requests } = clientOf(() => ({ ok: true }) as never);
    await assert.rejects(client.createPlant(PLANT), {
      name: 'TypeError',
      message: 'createPlant: fetch resolved to object, not a Response',
    });
    assert.equal(requests.length, 1);
  });
});
