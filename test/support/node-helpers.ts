/**
 * Helpers for tests over real sockets and processes: deadlines that turn a hang into an
 * assertion, a listener on a free loopback port (or the free port alone), a raw TCP client, a raw
 * HTTP response parser and child processes that are always reaped.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { FetchHandler } from '../../lib/index.ts';
import { type ToNodeListenerOptions, toNodeListener } from '../../lib/node.ts';

/** How long any single wait may take before it fails as an assertion instead of hanging. */
export const DEADLINE_MS = 5000;

/** Races a promise against a deadline; a hang becomes an assertion error naming what hung. */
export function withDeadline<T>(promise: Promise<T>, what: string, ms = DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new assert.AssertionError({ message: `timed out after ${ms} ms: ${what}` })),
      ms,
    );
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Calls `check` every `everyMs` until it returns something other than `undefined`, raced against
 * a deadline as `withDeadline` does; past the deadline it calls no more, so a failed wait leaves
 * no loop running.
 */
export function pollUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = DEADLINE_MS,
  everyMs = 20,
): Promise<T> {
  let over = false;
  const poll = async (): Promise<T> => {
    while (!over) {
      const found = await check();
      if (found !== undefined) return found;
      await delay(everyMs);
    }
    // The deadline has failed the wait already: nobody reads this.
    return undefined as never;
  };
  return withDeadline(poll(), what, ms).finally(() => {
    over = true;
  });
}

/** A promise with its resolve function outside, for a handler to wait on or to announce. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * A fetch handler that says when a request reached it (`entered`), then holds its answer,
 * `finished`, until `release` is opened: a request in flight for as long as a test needs.
 */
export function heldHandler(): {
  fetch: () => Promise<Response>;
  entered: ReturnType<typeof gate<void>>;
  release: ReturnType<typeof gate<void>>;
} {
  const entered = gate();
  const release = gate();
  const fetch = async (): Promise<Response> => {
    entered.open();
    await release.promise;
    return new Response('finished');
  };
  return { fetch, entered, release };
}

export interface TestServer {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** `http.createServer(toNodeListener(handler))` on a free loopback port. */
export async function listen(
  handler: FetchHandler,
  options?: ToNodeListenerOptions,
): Promise<TestServer> {
  const server = createServer(toNodeListener(handler, options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A free loopback port, as the kernel hands one out, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A raw TCP client: what it received, and whether the server closed the connection. */
export interface RawClient {
  readonly socket: Socket;
  /** Everything received so far, as latin1 text. */
  text(): string;
  /** Resolves when the server closed (or reset) the connection. */
  readonly closed: Promise<void>;
  /** Resolves once the received text matches. */
  waitFor(pattern: RegExp, what: string): Promise<string>;
}

export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  await withDeadline(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    'raw connect',
  );
  let received = '';
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    for (const waiter of waiters) waiter();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    text: () => received,
    closed,
    waitFor(pattern, what) {
      return withDeadline(
        new Promise<string>((resolve) => {
          const check = (): void => {
            if (pattern.test(received)) {
              waiters.delete(check);
              resolve(received);
            }
          };
          waiters.add(check);
          check();
        }),
        what,
      );
    },
  };
}

/** Sends raw bytes and collects everything until the server closes the connection. */
export async function rawExchange(port: number, payload: string): Promise<string> {
  const client = await rawClient(port);
  client.socket.write(payload);
  await withDeadline(client.closed, 'the server to close a raw connection');
  return client.text();
}

/** One parsed HTTP/1.1 response out of raw text, its body by `Content-Length` or chunked. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
}

export function parseRawResponse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  assert.ok(end > 0, `no complete response head in ${JSON.stringify(text)}`);
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(statusLine?.split(' ')[1]);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let rest = text.slice(end + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    let body = '';
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, lineEnd), 16);
      if (!(size > 0)) return { status, headers, body };
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
  }
  const length = Number(headers.get('content-length') ?? 0);
  return { status, headers, body: rest.slice(0, length) };
}

/**
 * Splits raw text that holds several responses on one connection into one text per response,
 * each cut where its `Content-Length` (or its chunked body) ends; a `1xx` interim response is
 * one too. Used to check the order and number of answers.
 */
export function splitResponses(text: string): string[] {
  const responses: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) {
      responses.push(rest);
      break;
    }
    const head = rest.slice(0, end);
    const chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
    let length = end + 4;
    if (chunked) {
      const last = rest.indexOf('\r\n0\r\n\r\n', end);
      length = last === -1 ? rest.length : last + 7;
    } else {
      length += Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    }
    responses.push(rest.slice(0, length));
    rest = rest.slice(length);
  }
  return responses;
}

/** A spawned child process whose output is collected line by line. */
export interface Child {
  readonly process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching the pattern (within `ms`, by default 15 s). */
  line(pattern: RegExp, what: string, ms?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Kills the child if it still runs; for `after` and `finally`. */
  kill(): void;
}

/** Spawns a command and collects its output; `kill` ends it (its whole group when detached). */
export function spawnChild(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  { detached = false }: { detached?: boolean } = {},
): Child {
  // `detached` gives the child a process group of its own, to signal it the way a terminal does.
  const child = spawn(command, args, {
    cwd,
    env: { ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exited,
    line(pattern, what, ms = 15_000) {
      return withDeadline(
        new Promise<RegExpMatchArray>((resolve, reject) => {
          const check = (): void => {
            for (const text of out.split('\n')) {
              const match = text.match(pattern);
              if (match) {
                waiters.delete(check);
                resolve(match);
                return;
              }
            }
          };
          waiters.add(check);
          exited.then((code) =>
            reject(new Error(`exited (${code}) before ${what}; stderr: ${err}`)),
          );
          check();
        }),
        what,
        ms,
      );
    },
    kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (detached && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    },
  };
}
