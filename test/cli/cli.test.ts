import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { serve } from '../../lib/node.ts';
import {
  type Child,
  delay,
  parseRawResponse,
  type RawClient,
  rawClient,
  spawnChild,
  withDeadline,
} from '../support/node-helpers.ts';
import { eachFewAtATime, NPM_START_MS, READY, ROOT } from '../support/cli-helpers.ts';

const PLANT = '{"id": 1, "name": "Monstera"}';

/** The parent's environment without anything that would change the server's settings. */
function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['PORT', 'HOST', 'PLANT_STORE_TOKENS', 'NODE_TEST_CONTEXT', 'DATABASE_URL']) {
    delete env[name];
  }
  for (const name of Object.keys(env)) if (name.startsWith('PLANT_STORE_')) delete env[name];
  return env;
}

describe('plant-store CLI', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });
  function cli(env: Record<string, string>): Child {
    const child = spawnChild(
      process.execPath,
      ['--import', 'tsx', 'lib/cli/main.ts'],
      { ...baseEnv(), ...env },
      ROOT,
    );
    children.push(child);
    return child;
  }
  function create(url: string, token: string): Promise<Response> {
    return withDeadline(
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: PLANT,
      }),
      'a create over HTTP',
    );
  }

  it('prints a generated token on stderr, only log lines and the real URL on stdout, and exits 0 on SIGTERM when PORT=0', async () => {
    const child = cli({ PORT: '0' });
    const [, url, port] = await child.line(READY, 'the readiness line');
    assert.notEqual(port, '0');
    // The token is a secret: it goes to stderr, never to stdout, which a log shipper reads.
    const token = child.stderr().match(/^plant-store token: ([A-Za-z0-9_-]{43})\n$/)?.[1];
    assert.ok(token, `no token line alone on stderr: ${JSON.stringify(child.stderr())}`);

    const created = await create(url as string, token);
    assert.equal(created.status, 200);
    assert.deepEqual(await created.json(), { name: 'Monstera' });
    assert.equal((await create(url as string, 'not-the-token')).status, 401);

    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
    // In JSON log mode stdout holds JSON lines and the one readiness line, nothing else.
    const lines = child.stdout().trimEnd().split('\n');
    assert.deepEqual(
      lines.filter((line) => !line.startsWith('{')),
      [`plant-store listening on ${url}`],
    );
    for (const line of lines.filter((line) => line.startsWith('{'))) JSON.parse(line);
    assert.ok(!child.stdout().includes(token), 'the token never enters a log line');
    assert.equal(child.stderr(), `plant-store token: ${token}\n`);
  });

  it('accepts every configured token, prints no token line and exits 0 on SIGINT when PLANT_STORE_TOKENS is set', async () => {
    const child = cli({ PORT: '0', PLANT_STORE_TOKENS: ' first , second ' });
    const [, url] = await child.line(READY, 'the readiness line');
    assert.doesNotMatch(child.stdout() + child.stderr(), /^plant-store token:/m);
    assert.equal((await create(url as string, 'second')).status, 200);
    assert.equal((await create(url as string, 'first')).status, 200);
    assert.equal((await create(url as string, 'third')).status, 401);
    child.process.kill('SIGINT');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGINT'), 0);
  });

  it('keeps serving, dropping log lines with one note on stderr, when the stdout reader goes away', async () => {
    // `npm start | head -1`: the reader closes after one line, and the next access line would
    // have met EPIPE and stopped the server.
    const child = cli({ PORT: '0', PLANT_STORE_TOKENS: 'tok', PLANT_STORE_LOG: 'json' });
    const [, url] = await child.line(READY, 'the readiness line');
    child.process.stdout?.destroy();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) assert.equal((await create(url as string, 'tok')).status, 200);
      // Past the log's batching delay, so each round's lines are written.
      await delay(150);
    }
    assert.equal(child.process.exitCode, null, 'the server is still running');
    assert.match(
      child.stderr(),
      /^plant-store: stdout is closed \(EPIPE\); log lines are dropped from now on\n$/,
    );
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
  });

  it('lets a new client in when PLANT_STORE_MAX_CONNECTIONS connections idle after a request each', async () => {
    // Twenty sockets that each sent one cheap request and then idled kept every new client out
    // for the keep-alive timeout (65 s).
    const child = cli({ PORT: '0', PLANT_STORE_TOKENS: 'tok', PLANT_STORE_MAX_CONNECTIONS: '20' });
    const [, url, port] = await child.line(READY, 'the readiness line');
    const idle = [];
    for (let i = 0; i < 20; i++) {
      const client = await rawClient(Number(port));
      client.socket.write('GET /openapi.json HTTP/1.1\r\nHost: a\r\n\r\n');
      await client.waitFor(/^HTTP\/1\.1 200 /, 'an idle keep-alive connection');
      idle.push(client);
    }
    const response = await withDeadline(fetch(`${url}/openapi.json`), 'a new client served');
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    await withDeadline((idle[0] as RawClient).closed, 'the connection idle the longest closed');
    for (const client of idle) client.socket.destroy();
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
  });

  it('lets an in-flight request finish and then exits 0 when SIGTERM arrives mid-request', async () => {
    const child = cli({ PORT: '0', PLANT_STORE_TOKENS: 'tok' });
    const [, url, port] = await child.line(READY, 'the readiness line');
    const client = await rawClient(Number(port));
    const head = `POST /plants HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: ${PLANT.length}\r\n\r\n`;
    client.socket.write(head + PLANT.slice(0, 10));
    await delay(100);
    child.process.kill('SIGTERM');
    // Stopped accepting: a new connection is refused while the first one is still open.
    await withDeadline(
      (async () => {
        for (;;) {
          try {
            await fetch(url as string);
            await delay(20);
          } catch {
            return;
          }
        }
      })(),
      'the server to stop accepting',
    );
    client.socket.write(PLANT.slice(10));
    await withDeadline(client.closed, 'the in-flight response and close');
    const reply = parseRawResponse(client.text());
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { name: 'Monstera' });
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
  });

  it('cuts in-flight requests at once and exits 0 when a second signal arrives a second later', async () => {
    const child = cli({ PORT: '0', PLANT_STORE_TOKENS: 'tok' });
    const [, , port] = await child.line(READY, 'the readiness line');
    const client = await rawClient(Number(port));
    client.socket.write(
      'POST /plants HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    await delay(100);
    child.process.kill('SIGTERM');
    // Within a second, a second signal is the same one (a terminal's Ctrl-C through npm).
    await delay(300);
    child.process.kill('SIGINT');
    await delay(900);
    assert.equal(child.process.exitCode, null, 'still waiting for the in-flight request');
    child.process.kill('SIGINT');
    assert.equal(await withDeadline(child.exited, 'the exit after the later signal', 2000), 0);
    assert.match(child.stdout(), /"msg":"stopping at once: a second signal"/);
    await withDeadline(client.closed, 'the in-flight connection to be cut');
  });

  it('exits 2 with one line on stderr and listens on nothing when a setting is bad', async () => {
    const cases: Record<string, string>[] = [
      { PORT: 'abc' },
      { PORT: '65536' },
      { PORT: '-1' },
      { PLANT_STORE_TOKENS: '' },
      { PLANT_STORE_TOKENS: ',' },
      // A timeout of 0 would mean "never".
      { PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS: '0' },
      { PLANT_STORE_REQUEST_TIMEOUT_MS: '0' },
    ];
    await eachFewAtATime(cases, async (env) => {
      const child = cli(env);
      assert.equal(
        await withDeadline(child.exited, `the exit for ${JSON.stringify(env)}`, 15_000),
        2,
      );
      assert.equal(child.stdout(), '', 'nothing printed on stdout: nothing listened');
      assert.match(child.stderr(), /^plant-store: [^\n]+\n$/);
    });
  });

  it('exits 1 with one line on stderr when the port is taken', async () => {
    const taken = await serve({ fetch: () => new Response('taken'), port: 0 });
    try {
      const child = cli({ PORT: String(taken.port), PLANT_STORE_TOKENS: 'tok' });
      assert.equal(await withDeadline(child.exited, 'the exit'), 1);
      assert.match(
        child.stderr(),
        /^plant-store: cannot listen on 127\.0\.0\.1:\d+: [^\n]*EADDRINUSE[^\n]*\n$/,
      );
      assert.equal(child.stdout(), '');
    } finally {
      await taken.close();
    }
  });

  it('lets SIGTERM through npm start so npm exits 0', async () => {
    const child = spawnChild('npm', ['start', '--silent'], { ...baseEnv(), PORT: '0' }, ROOT);
    children.push(child);
    await child.line(
      READY,
      'the readiness line through npm start',
      // npm start builds the package before it serves: on a busy machine that alone takes a while.
      NPM_START_MS,
    );
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'npm to exit after SIGTERM'), 0);
  });
});
