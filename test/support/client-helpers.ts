/**
 * Helpers for the client's tests: a `fetch` that answers from a script and records what it was
 * sent, and a TCP proxy that cuts connections after the server has started to answer.
 *
 * @module
 */

import { connect, createServer, type Socket } from 'node:net';

/** One scripted answer: a response, an error to reject with, or a function of the request. */
export type ScriptedAnswer =
  Response | Error | ((request: Request) => Response | Promise<Response>);

/**
 * A `fetch` that hands out `answers` in order (the last one again when they run out) and keeps
 * every request with the text of its body.
 */
export function scriptedFetch(...answers: ScriptedAnswer[]) {
  const requests: Array<{ request: Request; body: string }> = [];
  let next = 0;
  async function fetch(request: Request): Promise<Response> {
    requests.push({ request, body: await request.clone().text() });
    const answer = answers[Math.min(next++, answers.length - 1)] as ScriptedAnswer;
    if (answer instanceof Error) throw answer;
    if (answer instanceof Response) return answer.clone();
    return answer(request);
  }
  return { fetch, requests };
}

/** A response with the contract's Error body. */
export function errorAnswer(status: number, headers: Record<string, string> = {}): Response {
  return Response.json({ error: status, message: `status ${status}` }, { status, headers });
}

/** A TCP proxy in front of a port; `cut` connections are destroyed once the server answers. */
export interface CuttingProxy {
  /** The proxy's URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** How many connections it has cut. */
  cuts(): number;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `127.0.0.1:port` that destroys both sides of each of its first `cut`
 * connections as soon as the server's first response bytes arrive: the request was executed and
 * its answer is lost, as when a connection drops mid-create.
 */
export async function cuttingProxy(port: number, cut: number): Promise<CuttingProxy> {
  let accepted = 0;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const cutThis = accepted++ < cut;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (cutThis) {
        cuts += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${own}`,
    cuts: () => cuts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
