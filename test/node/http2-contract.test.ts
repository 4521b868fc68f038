/**
 * The contract's case list (`test/contract/`) over real HTTP/2: every case that runs over
 * HTTP/1.1 in `test/runtimes/` runs again through an h2c client against `toNodeListener` on
 * `http2.createServer`, each status, header and body checked as there. The bodies go out twice:
 * with a `Content-Length`, as `fetch` sends them, and without one, as HTTP/2 allows.
 *
 * @module
 */

import type { ClientHttp2Session } from 'node:http2';
import { after, before, describe, it } from 'node:test';
import * as cors from '../../lib/cors.ts';
import * as core from '../../lib/index.ts';
import { toNodeListener } from '../../lib/node.ts';
import { conformanceCases } from '../contract/cases.ts';
import { type ConformanceCase, createCaseContext, type Transport } from '../contract/context.ts';
import { createHandlerRouter } from '../runtimes/_run.ts';
import { fetchOver, type Http2TestServer, listenHttp2 } from '../support/http2-helpers.ts';

const router = createHandlerRouter();
let server: Http2TestServer;
let session: ClientHttp2Session;

before(async () => {
  server = await listenHttp2(toNodeListener(router.fetch, { onError: () => {} }));
  session = await server.connect();
});
after(() => server.close());

/** A transport over the one session, made once the server listens. */
function overHttp2(contentLength: boolean): Transport {
  let transport: Transport | undefined;
  return (handler, request) => {
    transport ??= router.transport(server.url, fetchOver(session, { contentLength }));
    return transport(handler, request);
  };
}

const groups = new Map<string, ConformanceCase[]>();
for (const rule of conformanceCases) {
  const list = groups.get(rule.group) ?? [];
  list.push(rule);
  groups.set(rule.group, list);
}

for (const contentLength of [true, false]) {
  const context = createCaseContext({ ...core, ...cors }, overHttp2(contentLength), true);
  describe(`over h2c, bodies ${contentLength ? 'with' : 'without'} Content-Length`, () => {
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
