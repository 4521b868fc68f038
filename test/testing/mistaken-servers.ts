/**
 * Servers with the mistakes real implementations make, for `checkServer` to catch: tiny
 * `node:http` servers that do one thing wrong and hand the rest to a correct plant store.
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';

/** A server on a free loopback port, and how to stop it. */
export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

/** What a mistaken server does with a request's body before (or instead of) the real store. */
type Mistake = (
  body: Buffer,
  request: IncomingMessage,
  response: ServerResponse,
) => Buffer | undefined;

/** Starts a server that reads each body whole, applies `mistake`, and forwards the rest. */
async function mistakenServer(
  token: string,
  mistake: Mistake,
  rewrite: (text: string, status: number, path: string) => string = (text) => text,
): Promise<RunningServer> {
  const store = createPlantStore({ verifier: createStaticTokenVerifier([token]) });
  const server = createServer((request, response) => {
    void read(request).then(async (body) => {
      const forwarded = mistake(body, request, response);
      if (forwarded === undefined) return;
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !['content-length', 'host', 'connection'].includes(name))
          headers.set(name, value);
      }
      const hasBody =
        request.method !== 'GET' && request.method !== 'HEAD' && forwarded.byteLength > 0;
      const answer = await store.fetch(
        new Request(`http://127.0.0.1${request.url}`, {
          method: request.method,
          headers,
          ...(hasBody ? { body: new Uint8Array(forwarded) } : {}),
        }),
      );
      const sent = Object.fromEntries(answer.headers);
      delete sent['content-length'];
      response.writeHead(answer.status, sent);
      response.end(rewrite(await answer.text(), answer.status, request.url ?? ''));
    });
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

async function read(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Checks that a body is there before it looks at the token: `400` where `401` is due. */
export function bodyBeforeToken(token: string): Promise<RunningServer> {
  return mistakenServer(token, (body, request, response) => {
    if (body.byteLength > 0 || request.method !== 'POST' || request.url !== '/plants') return body;
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 400, message: 'request body is required' }));
    return undefined;
  });
}

/** Parses the body with `JSON.parse` and writes it back: an id past 2^53 comes out rounded. */
export function losesInt64Precision(token: string): Promise<RunningServer> {
  return mistakenServer(token, (body) => {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
      return Buffer.from(JSON.stringify(JSON.parse(text)));
    } catch {
      return body;
    }
  });
}

/** Adds the error's stack to every Error body, as a framework's debug mode does. */
export function leaksStacks(token: string): Promise<RunningServer> {
  return mistakenServer(
    token,
    (body) => body,
    (text, status) =>
      status < 400 ? text : JSON.stringify({ ...JSON.parse(text), stack: 'Error: at create' }),
  );
}

/** Serves an OpenAPI 3.0 document whose id is a plain number. */
export function servesAnOldDocument(token: string): Promise<RunningServer> {
  return mistakenServer(
    token,
    (body) => body,
    (text, _status, path) => {
      if (path !== '/openapi.json') return text;
      const document = JSON.parse(text);
      document.openapi = '3.0.3';
      document.components.schemas.NewPlant = { properties: { id: { type: 'number' } } };
      return JSON.stringify(document);
    },
  );
}
