import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createDeadlines } from '../../lib/operation/deadlines.ts';

/** A subject that notes when it expired, in ms after `since`. */
function subject(since: number) {
  const seen = { expiredAfter: undefined as number | undefined, expire() {} };
  seen.expire = () => {
    assert.equal(seen.expiredAfter, undefined, 'expired twice');
    seen.expiredAfter = performance.now() - since;
  };
  return seen;
}

describe('createDeadlines', () => {
  it('expires a deadline that was not stopped, once, after the timeout', async () => {
    const start = createDeadlines(30);
    const one = subject(performance.now());
    start(one);
    await delay(80);
    assert.ok(one.expiredAfter !== undefined && one.expiredAfter >= 29, `${one.expiredAfter}`);
  });

  it('never expires a deadline that was stopped, and stops it again harmlessly', async () => {
    const start = createDeadlines(20);
    const one = subject(performance.now());
    const deadline = start(one);
    deadline.stop();
    deadline.stop();
    await delay(60);
    assert.equal(one.expiredAfter, undefined);
  });

  it('counts each deadline from its own start when others stop between them', async () => {
    const start = createDeadlines(60);
    const first = subject(performance.now());
    start(first);
    await delay(30);
    start(subject(performance.now())).stop();
    const secondStart = performance.now();
    const second = subject(secondStart);
    start(second);
    await delay(120);
    assert.ok(first.expiredAfter !== undefined && first.expiredAfter >= 59);
    assert.ok(second.expiredAfter !== undefined && second.expiredAfter >= 59);
    assert.ok(second.expiredAfter < 200, 'the second deadline waited for a later timer');
  });

  it('stops a deadline in the middle of the queue without losing those after it', async () => {
    const start = createDeadlines(30);
    const subjects = [0, 1, 2].map(() => subject(performance.now()));
    const deadlines = subjects.map((one) => start(one));
    deadlines[1]?.stop();
    await delay(80);
    assert.deepEqual(
      subjects.map((one) => one.expiredAfter !== undefined),
      [true, false, true],
    );
  });

  it('gives a deadline started while another expires its own full timeout', async () => {
    const start = createDeadlines(40);
    let retry: ReturnType<typeof subject> | undefined;
    start({
      expire() {
        retry = subject(performance.now());
        start(retry);
      },
    });
    await delay(70);
    assert.equal(retry?.expiredAfter, undefined, 'the retry expired at once');
    await delay(60);
    assert.ok(retry?.expiredAfter !== undefined && retry.expiredAfter >= 39);
  });
});
