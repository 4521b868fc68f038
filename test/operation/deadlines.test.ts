import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Deadline, Deadlines } from '../../lib/operation/deadlines.ts';

/** A deadline that notes when it expired, in ms after `since`, then runs `onExpire`. */
class Subject extends Deadline {
  expiredAfter: number | undefined;
  readonly since: number;
  readonly onExpire: (() => void) | undefined;
  constructor(since: number, onExpire?: () => void) {
    super();
    this.since = since;
    this.onExpire = onExpire;
  }
  expire(): void {
    assert.equal(this.expiredAfter, undefined, 'expired twice');
    this.expiredAfter = performance.now() - this.since;
    this.onExpire?.();
  }
}

const subject = (since: number) => new Subject(since);

describe('Deadlines', () => {
  it('expires a deadline that was not stopped, once, after the timeout', async () => {
    const deadlines = new Deadlines(30);
    const one = subject(performance.now());
    deadlines.start(one);
    await delay(80);
    assert.ok(one.expiredAfter !== undefined && one.expiredAfter >= 29, `${one.expiredAfter}`);
  });

  it('never expires a deadline that was stopped, and stops it again harmlessly', async () => {
    const deadlines = new Deadlines(20);
    const one = subject(performance.now());
    deadlines.start(one);
    deadlines.stop(one);
    deadlines.stop(one);
    await delay(60);
    assert.equal(one.expiredAfter, undefined);
  });

  it('counts each deadline from its own start when others stop between them', async () => {
    const deadlines = new Deadlines(60);
    const first = subject(performance.now());
    deadlines.start(first);
    await delay(30);
    const stopped = subject(performance.now());
    deadlines.start(stopped);
    deadlines.stop(stopped);
    const secondStart = performance.now();
    const second = subject(secondStart);
    deadlines.start(second);
    await delay(120);
    assert.ok(first.expiredAfter !== undefined && first.expiredAfter >= 59);
    assert.ok(second.expiredAfter !== undefined && second.expiredAfter >= 59);
    assert.ok(second.expiredAfter < 200, 'the second deadline waited for a later timer');
  });

  it('stops a deadline in the middle of the queue without losing those after it', async () => {
    const deadlines = new Deadlines(30);
    const subjects = [0, 1, 2].map(() => subject(performance.now()));
    for (const one of subjects) deadlines.start(one);
    deadlines.stop(subjects[1] as Subject);
    await delay(80);
    assert.deepEqual(
      subjects.map((one) => one.expiredAfter !== undefined),
      [true, false, true],
    );
  });

  it('gives a deadline started while another expires its own full timeout', async () => {
    const deadlines = new Deadlines(40);
    let retry: Subject | undefined;
    deadlines.start(
      new Subject(performance.now(), () => {
        retry = subject(performance.now());
        deadlines.start(retry);
      }),
    );
    await delay(70);
    assert.equal(retry?.expiredAfter, undefined, 'the retry expired at once');
    await delay(60);
    assert.ok(retry?.expiredAfter !== undefined && retry.expiredAfter >= 39);
  });
});

/** Runs `code` (an ES module importing `plant-store` as `../../lib/index.ts`) in a fresh Node. */
function runModule(code: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve) => {
    child.once('exit', (exit) => resolve({ code: exit, stdout }));
  });
}

const STORE = `
  import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
  const request = new Request('http://x/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{"id":1,"name":"Fern"}',
  });`;

describe("a store's deadlines and the process", () => {
  it('keep the process up until a create whose repository never answers gets its 503', async () => {
    // Nothing else keeps this process up: without the deadline's timer it would end unanswered.
    const result = await runModule(`${STORE}
      const store = createPlantStore({
        verifier: createStaticTokenVerifier(['t']),
        repository: { create: () => new Promise(() => {}) },
        timeoutMs: 200,
      });
      console.log((await store.fetch(request)).status);`);
    assert.deepEqual([result.code, result.stdout.trim()], [0, '503']);
  });

  it('hold no process open once every create is answered', async () => {
    // With a timeout of a minute the deadlines' timer ticks every few seconds; it must not wait.
    const result = await runModule(`${STORE}
      const store = createPlantStore({
        verifier: { verify: async () => ({ valid: true }) },
        timeoutMs: 60_000,
      });
      console.log((await store.fetch(request)).status);
      const answered = performance.now();
      process.once('exit', () => console.log(Math.round(performance.now() - answered)));`);
    const [status, exitedAfter] = result.stdout.trim().split('\n');
    assert.deepEqual([result.code, status], [0, '200']);
    assert.ok(Number(exitedAfter) < 1_000, `the process ended ${exitedAfter} ms after the answer`);
  });
});
