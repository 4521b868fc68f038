/**
 * The examples' smoke test: each of `examples/*.ts` is started as its user would start it, on
 * a free port on 127.0.0.1, and must print its URL, create a plant (`200` and the Plant) and
 * refuse a request without a token (`401` with the bearer challenge). Then the hosts of
 * `test/hosts/`, which mount the store behind a body parser (the order the README warns
 * against), must answer a valid create with a `500` Error body at once and tell `onError`
 * exactly once, with `ERR_BODY_ALREADY_READ`, to mount the store before the parser. Runs after
 * `npm run build`: Deno resolves `plant-store` to the built `dist/`, as an installed package
 * would. `npm run test:examples`; exits 1 when an example fails.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { runtimeBinaries } from './binaries.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'smoke-token';
/** How long an example may take to print its URL, and each request to be answered. */
const DEADLINE_MS = 15_000;

const tsx = (file: string): string[] => [process.execPath, '--import', 'tsx', file];
const deno = runtimeBinaries.deno;
const examples: Record<string, string[]> = {
  hono: tsx('examples/hono.ts'),
  'express 5': tsx('examples/express.ts'),
  'fastify 5': tsx('examples/fastify.ts'),
  'own repository': tsx('examples/own-repository.ts'),
  'Deno.serve': [
    deno,
    'run',
    '--cached-only',
    '--allow-net=127.0.0.1',
    '--allow-env',
    '--allow-read',
    'examples/deno.ts',
  ],
  'Bun.serve': [runtimeBinaries.bun, 'examples/bun.ts'],
};

/** The hosts that mount the store behind a body parser, each a misuse that must fail clearly. */
const parserFirstHosts: Record<string, string[]> = {
  'express 5 with express.json() first': tsx('test/hosts/express-json.ts'),
  'fastify 5 with its JSON parser on the route': tsx('test/hosts/fastify-json.ts'),
  "hono with validator('json') first": tsx('test/hosts/hono-validator.ts'),
};

/** A started example: what it printed so far. */
interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** Starts an example or host on a free loopback port, collecting what it prints. */
function start(command: string, args: string[]): Started {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', API_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  return { child, output: () => output };
}

/** Resolves to the URL the example prints once it listens. */
async function listeningUrl({ child, output }: Started): Promise<string> {
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`${why}; it printed: ${output()}`));
    deadline.addEventListener('abort', () => fail('no "listening on" line in time'));
    child.on('exit', (code) => fail(`it exited (${code}) before listening`));
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match?.[1]) resolve(match[1].replace(/\/$/, ''));
    };
    child.stdout?.on('data', look);
    look();
  });
}

/** Creates a plant with the token, then sends one without. */
async function smoke(url: string): Promise<void> {
  // An id past 2^53, written as JSON text: a JavaScript number would round it.
  const body = '{"id": 9007199254740993, "name": "Monstera", "tag": "aroid"}';
  const signal = AbortSignal.timeout(DEADLINE_MS);
  const created = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
    signal,
  });
  assert.equal(created.status, 200, 'create with the token');
  assert.equal(created.headers.get('content-type'), 'application/json');
  assert.deepEqual(await created.json(), { name: 'Monstera', tag: 'aroid' });
  const refused = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal,
  });
  assert.equal(refused.status, 401, 'create without a token');
  assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="plant-store"');
  assert.deepEqual(await refused.json(), { error: 401, message: 'a bearer token is required' });
}

/**
 * Sends a valid create to a host that read the body first: a `500` Error body at once, and one
 * `onError` line naming the code and the fix, while the host stays up for the next request.
 */
async function parserFirst(url: string, started: Started): Promise<void> {
  const body = '{"id": 1, "name": "Monstera"}';
  for (let round = 0; round < 2; round++) {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    assert.equal(response.status, 500, 'a create behind a body parser');
    assert.deepEqual(await response.json(), {
      error: 500,
      message:
        'internal error: the request body was read before plant-store; mount plant-store before any body parser',
    });
  }
  // The host prints its onError lines through a pipe, which may reach us after the responses.
  const reports = (): string[] => started.output().match(/^onError .*$/gm) ?? [];
  const waitUntil = Date.now() + 2_000;
  while (reports().length < 2 && Date.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(reports().length, 2, `one onError per request; it printed: ${started.output()}`);
  for (const report of reports()) {
    assert.match(report, /^onError ERR_BODY_ALREADY_READ: /);
    assert.match(report, /mount plant-store before any body parser/);
  }
}

let passed = 0;
let failed = 0;
const runs: Array<[string, string[], (url: string, started: Started) => Promise<void>]> = [
  ...Object.entries(examples).map(([name, command]) => [name, command, smoke] as const),
  ...Object.entries(parserFirstHosts).map(
    ([name, command]) => [name, command, parserFirst] as const,
  ),
].map(([name, command, check]) => [name, [...command], check]);
for (const [name, [command = '', ...args], check] of runs) {
  const started = start(command, args);
  try {
    await check(await listeningUrl(started), started);
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`not ok - ${name}: ${(error as Error).message}`);
  } finally {
    const { child } = started;
    const exited = child.exitCode === null ? once(child, 'exit') : Promise.resolve();
    child.kill('SIGTERM');
    await exited;
  }
}
console.log(`examples: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
