/**
 * The standalone server as an operator meets it (#21): the start-up summary, the access log as
 * JSON or text, `X-Request-Id`, the admin listener's `/livez`, `/readyz` and `/metrics` (read by
 * a real Prometheus text-format parser), the limits as settings, `--help` and `--version`, and a
 * terminal's Ctrl-C through `npm start`. All over the real CLI process.
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  cliEnv,
  logLine,
  logLines,
  NPM_START_MS,
  postPlant,
  READY,
  ROOT,
  startCli,
} from '../support/cli-helpers.ts';
import {
  type Child,
  delay,
  parseRawResponse,
  type RawClient,
  rawClient,
  spawnChild,
  withDeadline,
} from '../support/node-helpers.ts';

const TOKEN = 'operator-token-1';
/** An id the server made: its random prefix, then a counter. */
const MADE_ID = /^[0-9a-f]{12}-[1-9a-f][0-9a-f]*$/;

/** The admin listener's URL, from the start-up line. */
async function adminUrl(child: Child): Promise<string> {
  const started = await logLine(child, (line) => line.msg === 'started', 'the started line');
  assert.equal(typeof started.admin, 'string');
  return started.admin as string;
}

/** A raw `POST /plants` head for a body of `length` bytes, sent with `extra` header lines. */
function createHead(length: number, extra = ''): string {
  return `POST /plants HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
}

describe('plant-store CLI for operators', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  it('says at start what it runs with, never a secret, and warns that memory plants are lost', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN }, children);
    const [, url] = await child.line(READY, 'the readiness line');
    const lines = logLines(child);
    const started = lines.find((line) => line.msg === 'started');
    assert.ok(started, child.stdout());
    assert.equal(started.level, 'info');
    assert.equal(typeof started.time, 'string');
    assert.equal(started.url, url);
    assert.match(String(started.version), /^\d+\.\d+\.\d+/);
    assert.match(String(started.storage), /^memory/);
    assert.match(String(started.auth), /^static tokens/);
    assert.equal(started.admin, 'off');
    const { maxConnections, ...limits } = started.limits as Record<string, unknown>;
    assert.deepEqual(limits, {
      maxBodyBytes: 102_400,
      timeoutMs: 10_000,
      keepAliveTimeoutMs: 65_000,
    });
    // 4096, unless this machine's open-file limit leaves room for fewer.
    assert.ok(typeof maxConnections === 'number' && maxConnections <= 4096, `${maxConnections}`);
    assert.ok(
      lines.some((line) => line.level === 'warn' && /lost at exit/.test(String(line.msg))),
      child.stdout(),
    );
    assert.ok(!child.stdout().includes(TOKEN), 'the token is never printed when it was given');
  });

  it('logs one JSON line per request without the token or the body, and keeps or makes X-Request-Id', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN }, children);
    const [, url] = await child.line(READY, 'the readiness line');
    const body = '{"id": 7, "name": "Secret Garden Monstera"}';

    const kept = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-request-id': 'trace-0001',
      },
      body,
    });
    assert.equal(kept.status, 200);
    assert.equal(kept.headers.get('x-request-id'), 'trace-0001');

    // Ids that are not 1-200 visible ASCII characters are replaced, on every kind of answer.
    for (const [given, path, status] of [
      ['has space', '/plants', 401],
      ['x'.repeat(201), '/elsewhere', 404],
      [undefined, '/plants', 401],
    ] as const) {
      const headers: Record<string, string> = { authorization: 'Bearer wrong' };
      if (given !== undefined) headers['x-request-id'] = given;
      const answer = await fetch(`${url}${path}`, { method: 'POST', headers, body });
      assert.equal(answer.status, status);
      assert.match(answer.headers.get('x-request-id') ?? '', MADE_ID);
    }

    const line = await logLine(
      child,
      (entry) => entry.msg === 'request' && entry.requestId === 'trace-0001',
      'the request line',
    );
    assert.equal(line.level, 'info');
    assert.equal(line.method, 'POST');
    assert.equal(line.path, '/plants');
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.ok((line.bytesIn as number) >= body.length, 'bytes in count the body');
    assert.ok((line.bytesOut as number) > 0);
    await logLine(child, (entry) => entry.status === 404, 'the 404 request line');
    const stdout = child.stdout();
    assert.ok(!stdout.includes(TOKEN) && !stdout.includes('Bearer'), 'no token in the log');
    assert.ok(!stdout.includes('Secret Garden'), 'no body in the log');
  });

  it('logs readable text lines with PLANT_STORE_LOG=text and nothing but the ready line with off', async () => {
    const text = startCli(
      { PORT: '0', PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_LOG: 'text' },
      children,
    );
    const quiet = startCli(
      { PORT: '0', PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_LOG: 'off' },
      children,
    );
    const [[, textUrl], [, quietUrl]] = await Promise.all([
      text.line(READY, 'the text server'),
      quiet.line(READY, 'the quiet server'),
    ]);
    assert.equal((await postPlant(textUrl as string, TOKEN, { id: 1, name: 'a' })).status, 200);
    assert.equal((await postPlant(quietUrl as string, TOKEN, { id: 1, name: 'a' })).status, 200);
    await text.line(
      /^\d{4}-\d\d-\d\dT\S+Z INFO  request requestId=\S+ method=POST path=\/plants status=200 durationMs=[\d.]+ bytesIn=\d+ bytesOut=\d+$/,
      'a text request line',
    );
    await delay(100);
    assert.equal(quiet.stdout(), `plant-store listening on ${quietUrl}\n`);
  });

  it('serves /livez, /readyz and Prometheus /metrics on the admin port only, and is not ready while stopping', async () => {
    // Without a drain, which signals.test.ts covers: it stops accepting at once.
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_ADMIN_PORT: '0',
        PLANT_STORE_DRAIN_MS: '0',
      },
      children,
    );
    const [, url, port] = await child.line(READY, 'the readiness line');
    const admin = await adminUrl(child);
    assert.match(admin, /^http:\/\/127\.0\.0\.1:\d+$/);

    assert.equal((await fetch(`${admin}/livez`)).status, 200);
    const ready = await fetch(`${admin}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), {
      status: 'ready',
      checks: { shutdown: true, storage: true },
    });
    // The API's own routes stay the contract's.
    assert.equal((await fetch(`${url}/metrics`)).status, 404);
    assert.equal((await fetch(`${admin}/metrics`, { method: 'POST' })).status, 405);

    assert.equal((await postPlant(url as string, TOKEN, { id: 1, name: 'a' })).status, 200);
    assert.equal((await postPlant(url as string, TOKEN, { id: 1, name: 'a' })).status, 200);
    assert.equal((await postPlant(url as string, TOKEN, { id: 1, name: 'b' })).status, 409);
    assert.equal((await postPlant(url as string, 'wrong', { id: 2, name: 'a' })).status, 401);

    const exposition = await fetch(`${admin}/metrics`);
    assert.match(exposition.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const families = new Map(
      parsePrometheusTextFormat(await exposition.text()).map((family) => [family.name, family]),
    );
    const requests = families.get('plant_store_requests_total');
    assert.equal(requests?.type, 'COUNTER');
    const byStatus = Object.fromEntries(
      (requests?.metrics ?? [])
        .filter((sample) => sample.labels?.route === '/plants')
        .map((sample) => [sample.labels?.status, Number(sample.value)]),
    );
    assert.deepEqual(byStatus, { 200: 2, 409: 1, 401: 1 });
    const latency = families.get('plant_store_request_duration_seconds');
    assert.equal(latency?.type, 'HISTOGRAM');
    // This parser folds a labelled histogram into its buckets: cumulative, ending at the count.
    const buckets = Object.entries(latency?.metrics[0]?.buckets ?? {})
      .sort(([a], [b]) => Number(a) - Number(b)) // '+Inf' reads as Infinity
      .map(([, count]) => Number(count));
    assert.equal(buckets.length, 14);
    assert.deepEqual(
      buckets,
      [...buckets].sort((a, b) => a - b),
    );
    assert.equal(buckets.at(-1), 4);
    const value = (name: string): number => Number(families.get(name)?.metrics[0]?.value);
    assert.equal(value('plant_store_plants_created_total'), 1);
    assert.equal(value('plant_store_plant_replays_total'), 1);
    assert.equal(value('plant_store_plant_conflicts_total'), 1);
    assert.equal(value('plant_store_requests_in_flight'), 0);
    assert.ok(value('process_resident_memory_bytes') > 0);

    // A request in flight, then SIGTERM: not ready any more, while the request may still finish.
    const client = await rawClient(Number(port));
    const body = '{"id": 3, "name": "late"}';
    client.socket.write(createHead(body.length) + body.slice(0, 5));
    await delay(100);
    child.process.kill('SIGTERM');
    await logLine(child, (line) => String(line.msg).startsWith('stopping'), 'the stopping line');
    const stopping = await fetch(`${admin}/readyz`);
    assert.equal(stopping.status, 503);
    assert.deepEqual(await stopping.json(), {
      status: 'not ready',
      checks: { shutdown: false, storage: true },
    });
    assert.equal((await fetch(`${admin}/livez`)).status, 200);
    client.socket.write(body.slice(5));
    await withDeadline(client.closed, 'the in-flight response');
    assert.equal(parseRawResponse(client.text()).status, 200);
    assert.equal(await withDeadline(child.exited, 'the exit'), 0);
  });

  it('counts refused connections in /metrics, logs them once and reports them in /readyz, still 200', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_ADMIN_PORT: '0',
        PLANT_STORE_DRAIN_MS: '0',
        PLANT_STORE_MAX_CONNECTIONS: '3',
      },
      children,
    );
    const [, , port] = await child.line(READY, 'the readiness line');
    const admin = await adminUrl(child);
    // Every connection busy: each has sent half a request head.
    const busy = await Promise.all(
      [1, 2, 3].map(async () => {
        const client = await rawClient(Number(port));
        client.socket.write('GET /openapi.json HTTP/1.1\r\nHo');
        return client;
      }),
    );
    await delay(100);
    for (let i = 0; i < 30; i++) {
      const client = await rawClient(Number(port));
      await withDeadline(client.closed, 'a new connection refused');
      assert.equal(client.text(), '');
    }

    const metrics = await (await fetch(`${admin}/metrics`)).text();
    const refused = parsePrometheusTextFormat(metrics).find(
      (family) => family.name === 'plant_store_connections_refused_total',
    );
    assert.equal(refused?.type, 'COUNTER');
    assert.equal(Number(refused?.metrics[0]?.value), 30);
    const ready = await fetch(`${admin}/readyz`);
    assert.equal(ready.status, 200, 'a flood does not take the instance out of rotation');
    const body = (await ready.json()) as { saturation?: { connections?: Record<string, unknown> } };
    assert.deepEqual(body, {
      status: 'ready',
      checks: { shutdown: true, storage: true },
      saturation: {
        connections: {
          max: 3,
          refused: 30,
          lastRefusalAgeMs: body.saturation?.connections?.lastRefusalAgeMs,
        },
      },
    });
    assert.equal(typeof body.saturation?.connections?.lastRefusalAgeMs, 'number');
    const said = await logLine(
      child,
      (line) => String(line.msg).startsWith('refusing new connections'),
      'the refusals logged',
    );
    assert.equal(said.level, 'warn');
    assert.equal(said.maxConnections, 3);
    assert.equal(
      logLines(child).filter((line) => /refus/.test(String(line.msg))).length,
      1,
      'one line, not one per refused connection',
    );

    // The busy connections were kept: each is answered.
    for (const client of busy) {
      client.socket.write('st: a\r\n\r\n');
      await client.waitFor(/^HTTP\/1\.1 200 /, 'a busy connection answered');
      client.socket.destroy();
    }
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit'), 0);
  });

  it('keeps the connection cap within a low open-file limit and says so once at start', async () => {
    /** The server under `ulimit -n 256`: room for 128 connections. */
    const limited = (env: Record<string, string>): Child =>
      spawnChild(
        'sh',
        ['-c', 'ulimit -n 256 && exec "$0" --import tsx lib/cli/main.ts', process.execPath],
        cliEnv({ PORT: '0', PLANT_STORE_TOKENS: TOKEN, ...env }),
        ROOT,
      );
    const lowered = (child: Child) =>
      logLines(child).filter((line) => String(line.msg).startsWith('at most'));

    const byDefault = limited({});
    children.push(byDefault);
    const [, , port] = await byDefault.line(READY, 'the readiness line');
    const started = await logLine(byDefault, (line) => line.msg === 'started', 'started');
    assert.equal((started.limits as { maxConnections: number }).maxConnections, 128);
    assert.deepEqual(
      lowered(byDefault).map(({ level, msg }) => ({ level, msg })),
      [
        {
          level: 'warn',
          msg: 'at most 128 connections at once, not 4096: the open-file limit leaves room for no more (raise it with ulimit -n)',
        },
      ],
    );
    // The cap holds: 128 busy connections, and the next is refused rather than failing to open.
    const busy: RawClient[] = [];
    for (let i = 0; i < 128; i++) {
      const client = await rawClient(Number(port));
      client.socket.write('GET /openapi.json HTTP/1.1\r\nHo');
      busy.push(client);
    }
    await delay(100);
    const refused = await rawClient(Number(port));
    await withDeadline(refused.closed, 'the connection past the cap refused');
    assert.equal(refused.text(), '');
    const last = busy.at(-1) as RawClient;
    last.socket.write('st: a\r\n\r\n');
    await last.waitFor(/^HTTP\/1\.1 200 /, 'the last busy connection answered');
    for (const client of busy) client.socket.destroy();
    byDefault.process.kill('SIGTERM');
    assert.equal(await withDeadline(byDefault.exited, 'the exit'), 0);

    // Asked for more than the limit allows: lowered too, and said; asked for less: as asked.
    const tooMany = limited({ PLANT_STORE_MAX_CONNECTIONS: '1000' });
    children.push(tooMany);
    await tooMany.line(READY, 'the readiness line');
    await logLine(tooMany, (line) => line.msg === 'started', 'started');
    assert.deepEqual(
      lowered(tooMany).map(({ msg, maxConnections, asked }) => ({ msg, maxConnections, asked })),
      [
        {
          msg: 'at most 128 connections at once, not 1000: the open-file limit leaves room for no more (raise it with ulimit -n)',
          maxConnections: 128,
          asked: 1000,
        },
      ],
    );
    const fewer = limited({ PLANT_STORE_MAX_CONNECTIONS: '100' });
    children.push(fewer);
    await fewer.line(READY, 'the readiness line');
    const fewerStarted = await logLine(fewer, (line) => line.msg === 'started', 'started');
    assert.equal((fewerStarted.limits as { maxConnections: number }).maxConnections, 100);
    assert.deepEqual(lowered(fewer), []);
    for (const child of [tooMany, fewer]) {
      child.process.kill('SIGTERM');
      assert.equal(await withDeadline(child.exited, 'the exit'), 0);
    }
  });

  it('refuses a new id with 507 past PLANT_STORE_MAX_PLANTS, still replays, and applies the body limit', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_MAX_PLANTS: '1',
        PLANT_STORE_MAX_BODY_BYTES: '64',
      },
      children,
    );
    const [, url] = await child.line(READY, 'the readiness line');
    assert.equal((await postPlant(url as string, TOKEN, { id: 1, name: 'a' })).status, 200);
    const full = await postPlant(url as string, TOKEN, { id: 2, name: 'b' });
    assert.equal(full.status, 507);
    assert.deepEqual(Object.keys(await full.json()).sort(), ['error', 'message']);
    const replay = await postPlant(url as string, TOKEN, { id: 1, name: 'a' });
    assert.equal(replay.status, 200);
    assert.deepEqual(await replay.json(), { name: 'a' });
    const large = await postPlant(url as string, TOKEN, { id: 1, name: 'x'.repeat(64) });
    assert.equal(large.status, 413);
  });

  it('prints help or the version and exits 0 without listening; refuses an unknown argument', async () => {
    const run = (args: string[]): Child => {
      const child = spawnChild(
        process.execPath,
        ['--import', 'tsx', 'lib/cli/main.ts', ...args],
        cliEnv({ PORT: '0' }),
        ROOT,
      );
      children.push(child);
      return child;
    };
    const [helpRun, versionRun, unknown] = [run(['--help']), run(['--version']), run(['--port'])];
    assert.equal(await withDeadline(helpRun.exited, 'the exit after --help'), 0);
    assert.match(helpRun.stdout(), /^Usage: plant-store/m);
    assert.match(helpRun.stdout(), /PLANT_STORE_ADMIN_PORT/);
    assert.doesNotMatch(helpRun.stdout(), /listening/);
    assert.equal(await withDeadline(versionRun.exited, 'the exit after --version'), 0);
    assert.match(versionRun.stdout(), /^\d+\.\d+\.\d+\n$/);
    assert.equal(await withDeadline(unknown.exited, 'the exit after --port'), 2);
    assert.match(unknown.stderr(), /^plant-store: unknown argument "--port" \(try --help\)\n$/);
  });

  it('exits 2 naming PLANT_STORE_TOKENS when PLANT_STORE_TOKEN is set by mistake', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_TOKEN: TOKEN }, children);
    assert.equal(await withDeadline(child.exited, 'the exit'), 2);
    assert.equal(child.stdout(), '');
    assert.match(
      child.stderr(),
      /^plant-store: PLANT_STORE_TOKEN .*did you mean PLANT_STORE_TOKENS\?/,
    );
    assert.ok(!child.stderr().includes(TOKEN), 'the value is not echoed');
  });

  it('lets a request in flight finish when a terminal sends Ctrl-C to npm start and the server', async () => {
    // A terminal signals the whole foreground process group: npm and the server both get
    // SIGINT, and npm forwards its own. The server must count them as one.
    const child = spawnChild(
      'npm',
      ['start', '--silent'],
      cliEnv({ PORT: '0', PLANT_STORE_TOKENS: TOKEN }),
      ROOT,
      { detached: true },
    );
    children.push(child);
    const [, , port] = await child.line(
      READY,
      'the readiness line through npm start',
      // npm start builds the package before it serves: on a busy machine that alone takes a while.
      NPM_START_MS,
    );
    const client = await rawClient(Number(port));
    const body = '{"id": 9, "name": "through npm"}';
    client.socket.write(createHead(body.length) + body.slice(0, 5));
    await delay(100);
    process.kill(-(child.process.pid as number), 'SIGINT');
    await delay(300);
    client.socket.write(body.slice(5));
    await withDeadline(client.closed, 'the in-flight response');
    const reply = parseRawResponse(client.text());
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { name: 'through npm' });
    assert.equal(await withDeadline(child.exited, 'npm to exit after Ctrl-C'), 0);
    const messages = logLines(child).map((line) => line.msg);
    assert.ok(messages.includes('stopped'), child.stdout());
    assert.ok(!messages.includes('stopping at once: a second signal'), child.stdout());
  });
});
