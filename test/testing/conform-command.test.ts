import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { runConform } from '../../lib/cli/conform.ts';
import { READY, startCli } from '../support/cli-helpers.ts';
import { type Child, listen } from '../support/node-helpers.ts';
import { type ConformRun, conform as conformChild } from './conform-child.ts';
import {
  echoesAuthorization,
  ESCAPED,
  FORBIDDEN,
  sendsControls,
  tokenFragments,
} from './hostile-servers.ts';
import { bodyBeforeToken } from './mistaken-servers.ts';

const TOKEN = 'conform-command-token';
const DATABASE_URL = process.env.DATABASE_URL;
const CHECKS = 35;
const children: Child[] = [];
const cleanups: Array<() => Promise<void>> = [];
const scratch = mkdtempSync(join(tmpdir(), 'plant-store-conform-'));
after(async () => {
  for (const child of children) child.kill();
  for (const cleanup of cleanups) await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const conform = (args: readonly string[]) => conformChild(args, children);

/** The standalone server, started as its users start it, with `env`; its URL. */
async function standalone(env: Record<string, string>): Promise<string> {
  const child = startCli(
    { PORT: '0', PLANT_STORE_TOKENS: TOKEN, PLANT_STORE_LOG: 'off', ...env },
    children,
  );
  const [, url] = await child.line(READY, 'the readiness line');
  return url as string;
}

/** Asserts a passing run's TAP: every check ok, the plan, the ids and the summary. */
function assertAllPassed(run: ConformRun): void {
  assert.equal(run.code, 0, run.stdout);
  assert.equal(run.stderr, '');
  const lines = run.stdout.split('\n');
  assert.equal(lines[0], 'TAP version 14');
  assert.match(lines[2] ?? '', /^# writes ids \d+\.\.\d+, /);
  assert.equal(lines.filter((line) => line.startsWith('ok ')).length, CHECKS);
  assert.ok(!run.stdout.includes('not ok'));
  assert.ok(lines.includes(`1..${CHECKS}`));
  assert.ok(lines.includes(`# ${CHECKS} passed, 0 failed`));
  assert.ok(!run.stdout.includes(TOKEN), 'the token never appears in the output');
}

describe('plant-store conform', () => {
  it('passes every check and exits 0, writing JUnit XML, when the server is the standalone one on the memory store', async () => {
    const url = await standalone({});
    const junit = join(scratch, 'memory.xml');
    assertAllPassed(await conform([url, '--token', TOKEN, '--junit', junit]));
    const xml = readFileSync(junit, 'utf8');
    assert.match(
      xml,
      new RegExp(`<testsuite name="plant-store conform" tests="${CHECKS}" failures="0"`),
    );
    assert.equal(xml.match(/<testcase /g)?.length, CHECKS);
  });

  it(
    'passes every check and exits 0 when the standalone server stores in PostgreSQL',
    {
      skip:
        DATABASE_URL === undefined || DATABASE_URL === ''
          ? 'DATABASE_URL is not set: the standalone server needs a PostgreSQL server it can reach; .ci/run sets it'
          : false,
    },
    async () => {
      const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
      const schema = `plant_store_conform_${process.pid}_${Date.now()}`;
      cleanups.push(async () => {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      });
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const databaseUrl = new URL(DATABASE_URL as string);
      databaseUrl.searchParams.set('options', `-c search_path=${schema}`);
      const url = await standalone({ DATABASE_URL: databaseUrl.href });
      assertAllPassed(await conform([url, '--token', TOKEN]));
    },
  );

  it('prints not ok with the rule, a FAIL summary line, and exits 1 when the server answers 400 before 401', async () => {
    const server = await bodyBeforeToken(TOKEN);
    cleanups.push(() => server.close());
    let stdout = '';
    const junit = join(scratch, 'failing.xml');
    const code = await runConform(
      [server.url, '--token', TOKEN, '--junit', junit, '--first-id', '1099511627776'],
      {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => assert.fail(text) },
      },
    );
    assert.equal(code, 1);
    const failure = `2. authentication: POST /plants (no Authorization, Content-Type application/json, no body) answered 400; expected 401 (body {"error":400,"message":"request body is required"})`;
    assert.ok(
      stdout.includes(
        `not ok 9 - 2. authentication: checks the token before the body (401, not 400, 413 or 415)\n  ---\n  message: '${failure}'\n  ...\n`,
      ),
      stdout,
    );
    assert.ok(
      stdout.includes('# writes ids 1099511627776..1099511627875, 4611686018427387904, '),
      stdout,
    );
    assert.ok(
      stdout.endsWith(`1..${CHECKS}\n# ${CHECKS - 1} passed, 1 failed\n# FAIL ${failure}\n`),
      stdout,
    );
    assert.match(
      readFileSync(junit, 'utf8'),
      /<testcase classname="2\. authentication" name="2\. authentication: checks the token before the body \(401, not 400, 413 or 415\)">\n {6}<failure message="2\. authentication: POST \/plants .*&quot;request body is required&quot;}\)" type="ConformanceError">/,
    );
  });

  it('prints the control and bidi characters a server sends escaped, in TAP and in JUnit XML, when it sends them', async () => {
    const server = await sendsControls();
    cleanups.push(() => server.close());
    const junit = join(scratch, 'controls.xml');
    const run = await conform([server.url, '--token', TOKEN, '--junit', junit]);
    assert.equal(run.code, 1, run.stderr);
    for (const output of [run.stdout, readFileSync(junit, 'utf8')]) {
      assert.doesNotMatch(output, FORBIDDEN);
      assert.ok(output.includes(ESCAPED), output);
    }
  });

  it('prints one failure, that the token was refused, and exits 1 when the server refuses the token', async () => {
    const url = await standalone({});
    const run = await conform([url, '--token', 'a-token-the-server-never-took']);
    assert.equal(run.code, 1, run.stderr);
    const failure =
      'token: the token was refused: POST /plants with it answered 401 (body {"error":401,"message":"the bearer token is not valid"}); check --token';
    assert.equal(
      run.stdout,
      [
        'TAP version 14',
        `# plant-store conform ${url}`,
        'not ok 1 - token: accepts the token it was given',
        '  ---',
        `  message: '${failure}'`,
        '  ...',
        '1..1',
        '# 0 passed, 1 failed',
        `# FAIL ${failure}`,
        '',
      ].join('\n'),
    );
    assert.equal(run.stderr, '');
  });

  it('prints one failure, that the server cannot be reached, and exits 1 when nothing listens', async () => {
    const closed = await listen(() => new Response());
    await closed.close();
    const run = await conform([closed.url, '--token', TOKEN]);
    assert.equal(run.code, 1, run.stderr);
    const failure = `reach: cannot reach ${closed.url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${closed.port})`;
    assert.equal(
      run.stdout,
      [
        'TAP version 14',
        `# plant-store conform ${closed.url}`,
        'not ok 1 - reach: answers a first request at the base URL',
        '  ---',
        `  message: '${failure}'`,
        '  ...',
        '1..1',
        '# 0 passed, 1 failed',
        `# FAIL ${failure}`,
        '',
      ].join('\n'),
    );
  });

  it('never prints the token, in TAP or in JUnit XML, when the server writes it back in every answer', async () => {
    const token = 'Zq7Xw9/Vr4Kt2+Mp8Ln5_Hj3~Qa1==';
    const server = await echoesAuthorization(token);
    cleanups.push(() => server.close());
    const junit = join(scratch, 'echo.xml');
    const run = await conform([server.url, '--token', token, '--junit', junit]);
    assert.equal(run.code, 1, run.stderr);
    assert.ok(run.stdout.includes('Bearer <token>'), run.stdout);
    for (const output of [run.stdout, run.stderr, readFileSync(junit, 'utf8')]) {
      assert.deepEqual(tokenFragments(output, token), [], output);
    }
  });

  it('prints one line and exits 2 when the JUnit file cannot be written', async () => {
    const server = await bodyBeforeToken(TOKEN);
    cleanups.push(() => server.close());
    let stderr = '';
    const code = await runConform(
      [server.url, '--token', TOKEN, '--junit', join(scratch, 'missing', 'report.xml')],
      { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } },
    );
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^plant-store conform: cannot write .*report\.xml: ENOENT: no such file or directory, open '[^']+'\n$/,
    );
  });

  it('prints the usage and exits 0 when asked for --help', async () => {
    let stdout = '';
    const code = await runConform(['--help'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => assert.fail(text) },
    });
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: plant-store conform <base-url> --token <token> /);
  });

  for (const [args, message] of [
    [[], 'give one base URL'],
    [['http://127.0.0.1:1'], 'give --token <token>'],
    [['localhost:3000', '--token', 't'], 'not an http(s) URL: localhost:3000'],
    [
      ['http://127.0.0.1:1', '--token', 't', '--max-body-bytes', '1k'],
      '--max-body-bytes must be an integer of at least 64',
    ],
    [
      ['http://127.0.0.1:1', '--token', 't', '--first-id', '7'],
      '--first-id must be an integer from 2^40 to 2^52',
    ],
    [['http://127.0.0.1:1', '--tokn', 't'], "Unknown option '--tokn'"],
    [
      ['http://127.0.0.1:1', '--token', 'a secret'],
      '--token must be a bearer token (RFC 6750 b64token: letters, digits, -._~+/, then optional =)',
    ],
  ] as const) {
    it(`prints one line and exits 2, checking nothing, when the arguments are ${JSON.stringify(args)}`, async () => {
      let stderr = '';
      const code = await runConform(args, {
        stdout: { write: (text: string) => assert.fail(text) },
        stderr: { write: (text: string) => (stderr += text) },
      });
      assert.equal(code, 2);
      assert.equal(stderr, `plant-store conform: ${message} (try plant-store conform --help)\n`);
    });
  }
});
