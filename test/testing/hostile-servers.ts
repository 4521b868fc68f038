/**
 * Servers that attack the client checking them, for `checkServer` to survive: raw `node:net`
 * servers that answer every request in one hostile way, and count the connections they see
 * open (those that carried a request apart) and the bytes they write on each.
 *
 * @module
 */

import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';
import { listen } from '../support/node-helpers.ts';

/** What must never reach a terminal from a server: C0 but the newline, DEL, C1, bidi controls. */
export const FORBIDDEN =
  // oxlint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** A hostile server on a free loopback port. */
export interface HostileServer {
  readonly url: string;
  /** How many connections it has accepted. */
  readonly accepted: () => number;
  /** How many of them are still open. */
  readonly open: () => number;
  /** How many of those carried a request. */
  readonly openWithRequest: () => number;
  /** The most bytes it wrote on any one connection. */
  readonly mostWritten: () => number;
  /** Resolves once every connection that carried a request has closed. */
  readonly requestsClosed: () => Promise<void>;
  /** Resolves once every connection it accepted has closed. */
  readonly allClosed: () => Promise<void>;
  close(): Promise<void>;
}

/** What the server does with a connection once a request's head has arrived. */
export type Behaviour = (socket: Socket) => void;

/** Starts a server that answers each request's head with `behaviour`. */
export async function hostileServer(behaviour: Behaviour): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const carrying = new Set<Socket>();
  const written = new Map<Socket, number>();
  let accepted = 0;
  let waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (done() ? resolve() : waiters.push(check));
      check();
    });
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    written.set(socket, 0);
    socket.on('error', () => {});
    socket.on('close', () => {
      written.set(socket, socket.bytesWritten);
      sockets.delete(socket);
      carrying.delete(socket);
      wake();
    });
    let head = '';
    const onData = (chunk: Buffer) => {
      carrying.add(socket);
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      // The body, if any, is never read: the answer does not depend on it.
      socket.resume();
      behaviour(socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => sockets.size,
    openWithRequest: () => carrying.size,
    mostWritten: () =>
      Math.max(0, ...written.values(), ...[...sockets].map((socket) => socket.bytesWritten)),
    requestsClosed: () => until(() => carrying.size === 0),
    allClosed: () => until(() => sockets.size === 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        waiters = [];
        server.close(() => resolve());
      }),
  };
}

/** Writes `head` and then nothing, ever. */
export function headOnly(head: string): Behaviour {
  return (socket) => {
    socket.write(head);
  };
}

/** Writes chunks of `chunk` as fast as the client reads them, up to `limit` bytes, then stops. */
export function streams(head: string, chunk: string, limit: number): Behaviour {
  return (socket) => {
    socket.write(head);
    let sent = 0;
    const more = (): void => {
      while (sent < limit && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', more);
          return;
        }
      }
    };
    more();
  };
}

/** Writes `head`, then one byte of the body a second. */
export function trickles(head: string): Behaviour {
  return (socket) => {
    socket.write(head);
    const timer = setInterval(() => socket.write('a'), 1000);
    socket.on('close', () => clearInterval(timer));
  };
}

/** Writes `head` and part of the body, then drops the connection. */
export function closesMidBody(head: string, part: string): Behaviour {
  return (socket) => {
    socket.write(head + part, () => socket.destroy());
  };
}

/** A response head with `status` and `headers`, each given as a line `Name: value`. */
export function responseHead(status: string, ...headers: string[]): string {
  return `HTTP/1.1 ${status}\r\n${headers.map((line) => `${line}\r\n`).join('')}\r\n`;
}

/** Text meant for a terminal: clear the screen, set its title, colour, DEL, bidi overrides. */
const CONTROLS =
  '\x1b[2J\x1b]0;owned\x07 \x9b31m \x7f \u202eevil\u202c \u2066\u2069 \u200e\u200f\u061c \u2028';

/** `CONTROLS` as every message must quote it. */
export const ESCAPED =
  '\\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m \\u007f \\u202eevil\\u202c \\u2066\\u2069 \\u200e\\u200f\\u061c \\u2028';

/**
 * A server that answers every request with `CONTROLS` as its body, and a C1 control in its
 * Content-Type; `/openapi.json` with `200`, so that its check reads that header, all else `418`.
 */
export async function sendsControls(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    response.writeHead(request.url === '/openapi.json' ? 200 : 418, {
      'content-type': 'text/\x9b31m',
    });
    response.end(CONTROLS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An Authorization value as careless servers write it back: whole, JSON-escaped as PHP does
 * (`\/`) and as .NET does (`\u002B`), JSON-escaped twice (`\\u002B`), percent-encoded, and
 * upper-cased.
 */
function echoOf(authorization: string): string {
  const unicode = (c: string) =>
    `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
  return [
    authorization,
    authorization.replaceAll('/', '\\/'),
    authorization.replace(/[+/=]/g, unicode),
    authorization.replace(/[+/=]/g, (c) => `\\${unicode(c)}`),
    encodeURIComponent(authorization),
    authorization.toUpperCase(),
  ].join(' | ');
}

/**
 * A plant store, accepting `token`, behind a front that writes back the Authorization header it
 * got (and, on every answer, the first one it ever got) so that each check fails quoting it:
 * in the OpenAPI document, in a plant's and an Error's body (where a quote is cut short), in
 * `Content-Type` and `Allow`, and as the body of a `418` for the rest.
 */
export async function echoesAuthorization(
  token: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });
  let first: string | undefined;
  return listen(async (request) => {
    const own = request.headers.get('authorization');
    first ??= own ?? undefined;
    const echo = echoOf([own, first].filter((value) => value !== null).join(' / '));
    const answer = await store.fetch(request);
    const json = { 'content-type': 'application/json' };
    const text = await answer.text();
    if (answer.status === 200 && request.method === 'GET') {
      return new Response(`{"openapi":"${echo}"}`, { headers: json });
    }
    if (answer.status === 200) {
      return new Response(`${text.slice(0, -1)},"echo":"${echo}"}`, { headers: json });
    }
    if (answer.status === 400) {
      return new Response(`{"error":400,"message":"bad request","request":"${echo}"}`, {
        status: 400,
        headers: json,
      });
    }
    if (answer.status === 401) {
      return new Response(`{"error":401,"message":"refused ${echo}"}`, {
        status: 401,
        headers: { 'content-type': `text/plain; authorization="${echo}"` },
      });
    }
    if (answer.status === 405) {
      return new Response(request.method === 'HEAD' ? null : text, {
        status: 405,
        headers: { ...json, allow: `POST, ${echo}` },
      });
    }
    return new Response(echo, { status: 418 });
  });
}

/** The runs of six characters of `token` that `output` holds, in any case: it must hold none. */
export function tokenFragments(output: string, token: string): string[] {
  const text = output.toLowerCase();
  const fragments: string[] = [];
  for (let i = 0; i + 6 <= token.length; i += 1) {
    const fragment = token.slice(i, i + 6).toLowerCase();
    if (text.includes(fragment)) fragments.push(fragment);
  }
  return fragments;
}
