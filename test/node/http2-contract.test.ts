/**
 * The contract's case list (`test/contract/`) over real HTTP/2: every case that runs over
 * HTTP/1.1 in `test/runtimes/` runs again through an h2c client against `toNodeListener` on
 * `http2.createServer`, each status, header and body checked as there. The bodies go out twice:
 * with a `Content-Length`, as `fetch` sends them, and without one, as HTTP/2 allows. The cases run
 * once more against `serve({ http2: true })`.
 *
 * @module
 */

import { type ClientHttp2Session, connect, type Http2Server } from 'node:http2';
import { after, before, describe, it } from 'node:test';
import * as cors from '../../lib/cors.ts';
import * as core from '../../lib/index.ts';
import { serve, type ServeHandle, toNodeListener } from '../../lib/node.ts';
import { conformanceCases } from '../contract/cases.ts';
import { type ConformanceCase, createCaseContext, type Transport } from '../contract/context.ts';
import { createHandlerRouter } from '../runtimes/_run.ts';
import { fetchOver, type Http2TestServer, listenHttp2 } from '../support/http2-helpers.ts';

const router = createHandlerRouter();
let server: Http2TestServer;
let session: ClientHttp2Session;
let served: ServeHandle<Http2Server>;
let servedSession: ClientHttp2Session;

before(async () => {
  server = await listenHttp2(toNodeListener(router.fetch, { onError: () => {} }));
  session = await server.connect();
  // Its session waits idle while the cases above run: longer than the 5 s that would close it.
  served = await serve({
    fetch: router.fetch,
    port: 0,
    http2: true,
    keepAliveTimeout: 600_000,
    onError: () => {},
  });
  servedSession = connect(served.url);
});
after(async () => {
  servedSession.destroy();
  await Promise.all([server.close(), served.close()]);
});

/** A transport over one session, made once the server listens. */
function overHttp2(
  on: () => { url: string; session: ClientHttp2Session },
  contentLength: boolean,
): Transport {
  let transport: Transport | undefined;
  return (handler, request) => {
    const { url, session } = on();
    transport ??= router.transport(url, fetchOver(session, { contentLength }));
    return transport(handler, request);
  };
}

const groups = new Map<string, ConformanceCase[]>();
for (const rule of conformanceCases) {
  const list = groups.get(rule.group) ?? [];
  list.push(rule);
  groups.set(rule.group, list);
}

const fronts = [
  ['toNodeListener on http2.createServer', true, () => ({ url: server.url, session })],
  ['toNodeListener on http2.createServer', false, () => ({ url: server.url, session })],
  ['serve({ http2: true })', true, () => ({ url: served.url, session: servedSession })],
] as const;
for (const [front, contentLength, on] of fronts) {
  const context = createCaseContext({ ...core, ...cors }, overHttp2(on, contentLength), true);
  describe(`${front} over h2c, bodies ${contentLength ? 'with' : 'without'} Content-Length`, () => {
    for (const [group, rules] of groups) {
      describe(group, () => {
        for (const rule of rules) {
          const skip = rule.directOnly ?? false;
          it(rule.name, { skip }, () => rule.run(context));
        }
      });
    }
  });
}
