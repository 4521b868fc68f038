/**
 * `checkServer` pointed at servers that attack it: answers without end, answers that never come
 * or come a byte a second, enormous headers, bodies cut off, redirects elsewhere, and text meant
 * for the terminal. The run must end within its deadlines with bounded memory, name what
 * happened, leave no connection open, and quote the server's text harmlessly.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { checkServer, type ConformanceReport } from '../../lib/testing.ts';
import { cliEnv, ROOT } from '../support/cli-helpers.ts';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';
import {
  closesMidBody,
  ESCAPED,
  FORBIDDEN,
  headOnly,
  type HostileServer,
  hostileServer,
  responseHead,
  echoesAuthorization,
  sendsControls,
  streams,
  tokenFragments,
  trickles,
} from './hostile-servers.ts';

const TOKEN = 'hostile-test-token';
const CHECKS = 35;
const MIB = 1_048_576;
const servers: HostileServer[] = [];
const children: Child[] = [];
// A process's first fetch loads its HTTP client, which can take longer than the short deadlines
// here, so that a run's first request would seem to get no answer.
before(async () => {
  const server = await start(hostileServer(headOnly(responseHead('204 No Content'))));
  await fetch(server.url, { headers: { connection: 'close' } });
});
after(async () => {
  for (const child of children) child.kill();
  await Promise.all(servers.map((server) => server.close()));
});

async function start(server: Promise<HostileServer>): Promise<HostileServer> {
  const running = await server;
  servers.push(running);
  return running;
}

/** The first check's request, as a message names it. */
const OPENAPI = 'GET /openapi.json (no Authorization, no Content-Type, no body)';
const JSON_200 = 'Content-Type: application/json';
const chunk = (size: number) => `${size.toString(16)}\r\n${'a'.repeat(size)}\r\n`;

/**
 * Every way a server can attack the client, what the first failure must then say, how many
 * checks fail (one, the run's first request, when that got no answer at all), and the deadline.
 */
const ATTACKS: ReadonlyArray<{
  readonly title: string;
  readonly make: () => Promise<HostileServer>;
  readonly first: string | RegExp | ((url: string) => string);
  readonly failed: number;
  readonly timeoutMs: number;
}> = [
  {
    title: 'it streams a chunked answer without end',
    make: () =>
      hostileServer(
        streams(
          responseHead('200 OK', JSON_200, 'Transfer-Encoding: chunked'),
          chunk(65536),
          64 * MIB,
        ),
      ),
    first: `openapi: ${OPENAPI} answered 200 with a body of more than ${MIB} bytes, over the 1 MiB (${MIB} bytes) the checks read of any answer`,
    failed: CHECKS,
    timeoutMs: 2000,
  },
  {
    title: 'it declares a Content-Length over the cap',
    make: () =>
      hostileServer(
        streams(
          responseHead('200 OK', JSON_200, 'Content-Length: 10000000000'),
          'a'.repeat(65536),
          64 * MIB,
        ),
      ),
    first: `openapi: ${OPENAPI} answered 200 with a body of 10000000000 bytes (its Content-Length), over the 1 MiB (${MIB} bytes) the checks read of any answer`,
    failed: CHECKS,
    timeoutMs: 2000,
  },
  {
    title: 'it never answers',
    make: () => hostileServer(() => {}),
    first: (url) => `reach: cannot reach ${url}: no answer within 100 ms`,
    failed: 1,
    timeoutMs: 100,
  },
  {
    title: 'it sends the headers and then never the body',
    make: () => hostileServer(headOnly(responseHead('200 OK', JSON_200, 'Content-Length: 100'))),
    first: 'openapi: did not finish within 200 ms',
    failed: CHECKS,
    timeoutMs: 200,
  },
  {
    title: 'it trickles a byte a second',
    make: () => hostileServer(trickles(responseHead('200 OK', JSON_200, 'Content-Length: 100'))),
    first: 'openapi: did not finish within 200 ms',
    failed: CHECKS,
    timeoutMs: 200,
  },
  {
    title: 'it answers with an enormous header',
    make: () =>
      hostileServer(headOnly(responseHead('200 OK', JSON_200, `X-Pad: ${'a'.repeat(MIB)}`))),
    first: (url) => `reach: cannot reach ${url}: fetch failed (Headers Overflow Error)`,
    failed: 1,
    timeoutMs: 2000,
  },
  {
    title: 'it closes the connection mid-body',
    make: () =>
      hostileServer(
        closesMidBody(responseHead('200 OK', JSON_200, 'Content-Length: 1000'), '{"openapi":'),
      ),
    first:
      /^openapi: GET \/openapi\.json \(no Authorization, no Content-Type, no body\) answered 200, then its body broke off: terminated( \(.+\))?$/,
    failed: CHECKS,
    timeoutMs: 2000,
  },
];

describe('checkServer against a hostile server', () => {
  for (const attack of ATTACKS) {
    const fails = attack.failed === CHECKS ? 'every check' : 'the run at its first request';
    it(`fails ${fails}, naming what happened, and leaves no request's connection open when ${attack.title}`, async () => {
      const server = await start(attack.make());
      const report = await withDeadline(
        checkServer({ baseUrl: server.url, token: TOKEN, timeoutMs: attack.timeoutMs }),
        'the run',
        CHECKS * attack.timeoutMs + 10_000,
      );
      assert.equal(report.passed.length, 0);
      assert.equal(report.failed.length, attack.failed);
      const first = report.failed[0]?.error.message ?? '';
      if (typeof attack.first === 'string') assert.equal(first, attack.first);
      else if (typeof attack.first === 'function') assert.equal(first, attack.first(server.url));
      else assert.match(first, attack.first);
      assert.ok(server.accepted() >= attack.failed, `${server.accepted()} connections`);
      // Every connection that carried a request was closed by the run, not by the server.
      await withDeadline(
        server.requestsClosed(),
        `${server.openWithRequest()} connections with a request to close`,
        2000,
      );
      // What a client that stops at 1 MiB lets through its socket buffers, far below 64 MiB.
      assert.ok(server.mostWritten() < 16 * MIB, `${server.mostWritten()} bytes on one connection`);
    });
  }

  it('follows no redirect, and names the status, when every answer sends the client elsewhere', async () => {
    const elsewhere = await start(hostileServer(() => {}));
    const server = await start(
      hostileServer(
        headOnly(
          responseHead(
            '307 Temporary Redirect',
            `Location: ${elsewhere.url}/plants`,
            'Content-Length: 0',
          ),
        ),
      ),
    );
    const report = await checkServer({ baseUrl: server.url, token: TOKEN, timeoutMs: 5000 });
    assert.equal(report.failed.length, CHECKS);
    assert.equal(report.failed[0]?.error.message, `openapi: ${OPENAPI} answered 307; expected 200`);
    assert.equal(elsewhere.accepted(), 0);
    await withDeadline(
      server.requestsClosed(),
      `${server.openWithRequest()} connections with a request to close`,
      2000,
    );
  });

  it('says the token was refused, without the body, when the 401 to the first request never ends', async () => {
    const server = await start(
      hostileServer(headOnly(responseHead('401 Unauthorized', JSON_200, 'Content-Length: 100'))),
    );
    const report = await checkServer({ baseUrl: server.url, token: TOKEN, timeoutMs: 200 });
    assert.deepEqual(
      report.failed.map(({ error }) => error.message),
      ['token: the token was refused: POST /plants with it answered 401'],
    );
    await withDeadline(
      server.requestsClosed(),
      `${server.openWithRequest()} connections with a request to close`,
      2000,
    );
  });

  it('leaves no connection open at all soon after the run when the server never answers', async () => {
    const server = await start(hostileServer(() => {}));
    await checkServer({ baseUrl: server.url, token: TOKEN, timeoutMs: 100 });
    await withDeadline(
      server.requestsClosed(),
      `${server.openWithRequest()} connections with a request to close`,
      2000,
    );
    // Node's fetch opens a spare connection after an aborted request, which never carries one
    // and which it closes itself once it has idled for its keep-alive timeout.
    await withDeadline(server.allClosed(), `${server.open()} idle connections to close`, 10_000);
  });

  it('lets the process that ran it exit at once when the server answers too slowly', async () => {
    const slow = createServer((_request, response) => {
      setTimeout(() => response.end('{}'), 60_000).unref();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    after(() => {
      slow.closeAllConnections();
      slow.close();
    });
    const { port } = slow.address() as { port: number };
    const script = `import { checkServer } from './lib/testing.ts';
const report = await checkServer({ baseUrl: 'http://127.0.0.1:${port}', token: 't', timeoutMs: 50 });
console.log('resolved with', report.failed.length, 'failed');`;
    const child = spawnChild(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      cliEnv({}),
      ROOT,
    );
    children.push(child);
    await child.line(/^resolved with 1 failed$/, 'the run', 30_000);
    // Requests left running would keep the child alive until the server answered them.
    assert.equal(await withDeadline(child.exited, 'the exit after the run', 5000), 0);
  });
});

describe('checkServer quoting a server', () => {
  it('escapes C0, C1, DEL and bidi controls in every message when the server sends them', async () => {
    const server = await sendsControls();
    after(() => server.close());
    const report: ConformanceReport = await checkServer({
      baseUrl: server.url,
      token: TOKEN,
    });
    const text = report.failed.map(({ error }) => error.message).join('\n');
    assert.doesNotMatch(text, FORBIDDEN);
    assert.ok(text.includes(ESCAPED), text);
    assert.ok(text.includes('Content-Type "text/\\u009b31m"'), text);
  });

  it('masks the token wherever the server writes it back, whole or escaped, and cut short', async () => {
    // Slashes, a plus and padding: the characters JSON and URLs write in other ways.
    const token = 'Zq7Xw9/Vr4Kt2+Mp8Ln5_Hj3~Qa1==';
    const server = await echoesAuthorization(token);
    after(() => server.close());
    const report = await checkServer({ baseUrl: server.url, token });
    const text = report.failed.map(({ error }) => error.message).join('\n');
    // All but the checks that ask only for a 200 and a Date.
    assert.ok(report.failed.length >= 30, text);
    assert.deepEqual(tokenFragments(text, token), [], text);
    // What the server sent is still quoted, but for the token.
    assert.ok(text.includes('Bearer <token> | Bearer <token> | Bearer <token> |'), text);
    assert.ok(text.includes('allow: "POST, Bearer <token> | '), text);
  });

  it('masks the token in the one failure when the server refuses it and writes it back', async () => {
    const token = 'Zq7Xw9/Vr4Kt2+Mp8Ln5_Hj3~Qa1==';
    const server = await echoesAuthorization('another-token');
    after(() => server.close());
    const report = await checkServer({ baseUrl: server.url, token });
    const [failure, ...rest] = report.failed.map(({ error }) => error.message);
    assert.deepEqual(rest, []);
    assert.ok(
      failure?.startsWith(
        'token: the token was refused: POST /plants with it answered 401 (body {"error":401,"message":"refused Bearer <token> / Bearer <token> | Bearer <token> \\/ Bearer <token> | ',
      ),
      failure,
    );
    assert.deepEqual(tokenFragments(failure ?? '', token), [], failure);
  });
});
