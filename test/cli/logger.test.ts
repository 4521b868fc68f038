/**
 * The standalone server's log (#21), on its own: the request line's exact JSON, its text form,
 * the level filter, batching (one write for many lines, none lost at `flush`) and the summary
 * of a repeated error.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, type LogOutput } from '../../lib/cli/logger.ts';
import type { RequestRecord } from '../../lib/node.ts';
import { delay } from '../support/node-helpers.ts';

/** An output that keeps each write apart. */
function recorder(isTTY = false): LogOutput & { writes: string[]; lines(): string[] } {
  const writes: string[] = [];
  return {
    isTTY,
    writes,
    write(text: string) {
      writes.push(text);
    },
    lines: () => writes.join('').split('\n').filter(Boolean),
  };
}

const RECORD: RequestRecord = {
  requestId: 'id-"quoted"\\',
  method: 'POST',
  path: '/plants/\u00e9"x',
  status: 200,
  durationMs: 1.23456,
  bytesIn: 205,
  bytesOut: 220,
};

describe('the standalone server log', () => {
  it('writes a request line as the JSON of its fields, in order, whatever the id and path hold', () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    log.request(RECORD);
    log.request({ ...RECORD, requestId: undefined });
    log.flush();
    const [first, second] = output.lines();
    const time = (JSON.parse(first as string) as { time: string }).time;
    assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const fields = {
      method: 'POST',
      path: '/plants/\u00e9"x',
      status: 200,
      durationMs: 1.235,
      bytesIn: 205,
      bytesOut: 220,
    };
    assert.equal(
      first,
      JSON.stringify({
        time,
        level: 'info',
        msg: 'request',
        requestId: RECORD.requestId,
        ...fields,
      }),
    );
    const secondTime = (JSON.parse(second as string) as { time: string }).time;
    assert.equal(
      second,
      JSON.stringify({ time: secondTime, level: 'info', msg: 'request', ...fields }),
    );
  });

  it('writes every string of a request line as JSON.stringify would, escapes and all', () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    const strings = [
      '/plants',
      'a"b',
      'a\\b',
      'tab\there',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u00e9',
      '\ud83c\udf31',
      'lone \ud800',
      'lone \udfff',
      '',
    ];
    for (const text of strings)
      log.request({ ...RECORD, requestId: text, method: text, path: text });
    log.flush();
    const lines = output.lines();
    assert.equal(lines.length, strings.length);
    strings.forEach((text, i) => {
      const line = lines[i] as string;
      const { time } = JSON.parse(line) as { time: string };
      const expected = JSON.stringify({
        time,
        level: 'info',
        msg: 'request',
        requestId: text,
        method: text,
        path: text,
        status: 200,
        durationMs: 1.235,
        bytesIn: 205,
        bytesOut: 220,
      });
      assert.equal(line, expected, JSON.stringify(text));
    });
  });

  it("writes each request's own method and path when only one of them changes", () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    const requests = [
      ['POST', '/plants'],
      ['POST', '/plants'],
      ['GET', '/plants'],
      ['GET', '/openapi.json'],
      ['POST', '/openapi.json'],
      ['POST', '/plants'],
    ] as const;
    for (const [method, path] of requests) log.request({ ...RECORD, method, path });
    log.flush();
    const logged = output.lines().map((line) => {
      const { method, path } = JSON.parse(line) as { method: string; path: string };
      return [method, path];
    });
    assert.deepEqual(logged, requests);
  });

  it('writes a first line with an empty method and path (a request the parser refused) whole', () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    log.request({ ...RECORD, method: '', path: '' });
    log.request({ ...RECORD, method: '', path: '' });
    log.flush();
    for (const line of output.lines()) {
      const { method, path, status } = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual([method, path, status], ['', '', 200]);
    }
    assert.equal(output.lines().length, 2);
  });

  it('writes readable text on a terminal, and nothing below the level asked for', () => {
    const tty = recorder(true);
    const text = createLogger({ format: 'auto', level: 'info' }, tty);
    text.request(RECORD);
    text.flush();
    const quiet = recorder();
    const log = createLogger({ format: 'json', level: 'warn' }, quiet);
    log.request(RECORD);
    log.info('started');
    log.warn('careful');
    log.flush();
    assert.match(tty.writes.join(''), /^\S+Z INFO {2}request requestId=id-"quoted"\\ method=POST /);
    assert.deepEqual(
      quiet.lines().map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['careful'],
    );
    // What the server asks before following requests for the log at all.
    assert.equal(text.logsRequests, true);
    assert.equal(log.logsRequests, false);
    assert.equal(createLogger({ format: 'off', level: 'info' }, recorder()).logsRequests, false);
  });

  it('writes many lines at once, soon after the first, and everything at flush', async () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    for (let i = 0; i < 20; i++) log.request(RECORD);
    assert.equal(output.writes.length, 0, 'nothing written line by line');
    await delay(200);
    assert.equal(output.writes.length, 1, 'one write for the batch');
    assert.equal(output.lines().length, 20);
    log.info('stopping');
    log.flush();
    assert.equal(output.lines().length, 21, 'flush writes what is buffered at once');
  });

  it('writes a repeated error once and counts the repeats', () => {
    const output = recorder();
    const log = createLogger({ format: 'json', level: 'info' }, output);
    for (let i = 0; i < 5; i++) log.error(new Error('database down'), { requestId: `r${i}` });
    log.error(new Error('something else'));
    log.flush();
    const lines = output.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['unexpected error', 'the same error 4 more time(s) in the last 10 s', 'unexpected error'],
    );
    assert.equal(lines[0]?.requestId, 'r0');
    const error = lines[0]?.error as { message: string; stack: string };
    assert.equal(error.message, 'database down');
    assert.match(error.stack, /^Error: database down\n/);
  });
});
