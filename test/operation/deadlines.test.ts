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
    const { start, stop } = createDeadlines(30);
    const one = subject(performance.now());
    start(one);
    await delay(80);
    assert.ok(one.expiredAfter !== undefined && one.expiredAfter >= 29, `${one.expiredAfter}`);
  });

  it('never expires a deadline that was stopped, and stops it again harmlessly', async () => {
    const { start, stop } = createDeadlines(20);
    const one = subject(performance.now());
    const deadline = start(one);
    stop(deadline);
    stop(deadline);
    await delay(60);
    assert.equal(one.expiredAfter, undefined);
  });

  it('counts each deadline from its own start when others stop between them', async () => {
    const { start, stop } = createDeadlines(60);
    const first = subject(performance.now());
    start(first);
    await delay(30);
    stop(start(subject(performance.now())));
    const secondStart = performance.now();
    const second = subject(secondStart);
    start(second);
    await delay(120);
    assert.ok(first.expiredAfter !== undefined && first.expiredAfter >= 59);
    assert.ok(second.expiredAfter !== undefined && second.expiredAfter >= 59);
    assert.ok(second.expiredAfter < 200, 'the second deadline waited for a later timer');
  });

  it('stops a deadline in the middle of the queue without losing those after it', async () => {
    const { start, stop } = createDeadlines(30);
    const subjects = [0, 1, 2].map(() => subject(performance.now()));
    const deadlines = subjects.map((one) => start(one));
    stop(deadlines[1] as number);
    await delay(80);
    assert.deepEqual(
      subjects.map((one) => one.expiredAfter !== undefined),
      [true, false, true],
    );
  });

  it('gives a deadline started while another expires its own full timeout', async () => {
    const { start, stop } = createDeadlines(40);
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

  it('does not stop a later deadline when a stopped one is stopped again', async () => {
    const { start, stop } = createDeadlines(20);
    const first = start(subject(performance.now()));
    stop(first);
    const second = subject(performance.now());
    start(second);
    stop(first);
    await delay(60);
    assert.ok(second.expiredAfter !== undefined, 'a stale stop stopped a later deadline');
  });

  it('expires every one of thousands of deadlines once, and stops those stopped', async () => {
    const { start, stop } = createDeadlines(20);
    const subjects = Array.from({ length: 3000 }, () => subject(performance.now()));
    const deadlines = subjects.map((one) => start(one));
    for (let i = 0; i < deadlines.length; i += 3) stop(deadlines[i] as number);
    await delay(80);
    // More after the queue dropped its spent front: numbers must still find their deadline.
    const later = subject(performance.now());
    const stopped = subject(performance.now());
    start(later);
    stop(start(stopped));
    await delay(60);
    assert.deepEqual(
      subjects.map((one, i) => (one.expiredAfter !== undefined) === (i % 3 !== 0)),
      subjects.map(() => true),
    );
    assert.ok(later.expiredAfter !== undefined);
    assert.equal(stopped.expiredAfter, undefined);
  });
});
