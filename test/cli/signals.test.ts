/**
 * How the standalone server stops, over its real process: on the first SIGTERM or SIGINT
 * `/readyz` answers `503` at once, the server keeps accepting and serving for
 * `PLANT_STORE_DRAIN_MS` with every answer saying `Connection: close` (the time a load balancer
 * needs to take it out), then stops accepting, lets in-flight requests finish and exits 0; a
 * second signal stops at once; without an admin port, nothing probes readiness and Ctrl-C stops
 * at once.
 */

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { logLine, logLines, postPlant, READY, startCli } from '../support/cli-helpers.ts';
import {
  type Child,
  delay,
  parseRawResponse,
  pollUntil,
  type RawClient,
  rawClient,
  splitResponses,
  withDeadline,
} from '../support/node-helpers.ts';

const TOKEN = 'signals-token';
const PLANT = '{"id": 7, "name": "Calathea"}';
const HEAD = `POST /plants HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${PLANT.length}\r\n\r\n`;

/** The `Connection` header of each answer a raw client received, in order. */
function connectionHeaders(client: RawClient): (string | undefined)[] {
  return splitResponses(client.text()).map(
    (text) => parseRawResponse(text).headers.get('connection') ?? undefined,
  );
}

/** The log lines of the stop's phases, each named by its message's first word. */
function phases(child: Child): Record<string, unknown>[] {
  return logLines(child).filter((line) => /^(draining|stopping|stopped)\b/.test(String(line.msg)));
}

/** The admin listener's URL, from the start-up line. */
async function adminUrl(child: Child): Promise<string> {
  const started = await logLine(child, (line) => line.msg === 'started', 'the started line');
  return started.admin as string;
}

/** Resolves once a new connection to `url` is refused. */
function refused(url: string, what: string): Promise<true> {
  return pollUntil(
    () =>
      fetch(url).then(
        () => undefined,
        () => true as const,
      ),
    what,
  );
}

describe('the standalone server stopping', () => {
  const children: Child[] = [];
  after(() => {
    for (const child of children) child.kill();
  });

  it('keeps serving for PLANT_STORE_DRAIN_MS with /readyz 503 and Connection: close on every answer, then stops accepting, finishes in flight and exits 0', async () => {
    const child = startCli(
      {
        PORT: '0',
        PLANT_STORE_TOKENS: TOKEN,
        PLANT_STORE_ADMIN_PORT: '0',
        PLANT_STORE_DRAIN_MS: '1000',
      },
      children,
    );
    const [, url, port] = await child.line(READY, 'the readiness line');
    const admin = await adminUrl(child);
    // A keep-alive connection a balancer holds, idle, and a request in flight across the drain.
    const kept = await rawClient(Number(port));
    kept.socket.write(HEAD + PLANT);
    await kept.waitFor(/^HTTP\/1\.1 200 [^]*\{"name":"Calathea"\}$/, 'a first answer');
    const inFlight = await rawClient(Number(port));
    inFlight.socket.write(HEAD + PLANT.slice(0, 5));
    await delay(100);

    child.process.kill('SIGTERM');
    const signalled = performance.now();
    const draining = await logLine(
      child,
      (line) => String(line.msg).startsWith('draining'),
      'the draining line',
    );
    assert.equal(draining.level, 'info');
    assert.match(String(draining.msg), /^draining: /);
    assert.equal(draining.signal, 'SIGTERM');
    assert.equal(draining.drainMs, 1000);
    // Not ready at once, so a balancer takes it out while it still serves.
    assert.equal((await fetch(`${admin}/readyz`)).status, 503);
    const fresh = await postPlant(url as string, TOKEN, { id: 8, name: 'Pilea' });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.get('connection'), 'close');
    kept.socket.write(HEAD + PLANT);
    await withDeadline(kept.closed, 'the kept connection to close after its answer');
    assert.deepEqual(connectionHeaders(kept), ['keep-alive', 'close']);
    assert.ok(performance.now() - signalled < 1000, 'all of that within the drain');

    await refused(url as string, 'the server to stop accepting after the drain');
    assert.ok(performance.now() - signalled >= 950, 'accepting until the drain ended');
    inFlight.socket.write(PLANT.slice(5));
    await withDeadline(inFlight.closed, 'the in-flight answer and close');
    assert.deepEqual(connectionHeaders(inFlight), ['close']);
    assert.equal(parseRawResponse(inFlight.text()).status, 200);
    assert.equal(await withDeadline(child.exited, 'the exit'), 0);

    const lines = phases(child);
    assert.deepEqual(
      lines.map(({ msg }) => String(msg).split(':')[0]),
      ['draining', 'stopping', 'stopped'],
    );
    const [, stopping, stopped] = lines;
    assert.deepEqual(
      { ...stopping, time: undefined },
      {
        time: undefined,
        level: 'info',
        msg: 'stopping: no new connections; in-flight requests may finish',
        signal: 'SIGTERM',
        graceMs: 10_000,
      },
    );
    const at = (line: Record<string, unknown> | undefined) => Date.parse(String(line?.time));
    assert.ok(at(stopping) - at(draining) >= 990, 'no new connections once the drain ended');
    assert.ok(Number(stopped?.durationMs) >= 1000);
  });

  it('drains 5 s by default when an admin port is set, and stops at once on a second signal', async () => {
    const child = startCli(
      { PORT: '0', PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_ADMIN_PORT: '0' },
      children,
    );
    const [, url] = await child.line(READY, 'the readiness line');
    await adminUrl(child);
    child.process.kill('SIGTERM');
    const draining = await logLine(
      child,
      (line) => String(line.msg).startsWith('draining'),
      'the draining line',
    );
    assert.equal(draining.drainMs, 5000);
    // A second signal within a second is the same one (a terminal's Ctrl-C through npm).
    await delay(1100);
    const still = await postPlant(url as string, TOKEN, { id: 9, name: 'Ficus' });
    assert.equal(still.status, 200);
    assert.equal(still.headers.get('connection'), 'close');
    const second = performance.now();
    child.process.kill('SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after the second signal', 2000), 0);
    assert.ok(performance.now() - second < 1000, 'stopped at once');
    assert.ok(
      logLines(child).some((line) => line.msg === 'stopping at once: a second signal'),
      child.stdout(),
    );
  });

  it('stops accepting and exits at once on Ctrl-C when no admin port is set', async () => {
    const child = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN }, children);
    const [, url] = await child.line(READY, 'the readiness line');
    assert.equal((await postPlant(url as string, TOKEN, { id: 10, name: 'Hoya' })).status, 200);
    const signalled = performance.now();
    child.process.kill('SIGINT');
    assert.equal(await withDeadline(child.exited, 'the exit after Ctrl-C'), 0);
    assert.ok(performance.now() - signalled < 1000, 'exited at once');
    assert.deepEqual(
      phases(child).map(({ msg }) => String(msg).split(':')[0]),
      ['stopping', 'stopped'],
    );
  });
});
