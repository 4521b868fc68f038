/** The Hono 4 app of `_hono-app.ts` on @hono/node-server. */
import { serve } from '@hono/node-server';
import { announce, benchPort, exitOnSignal } from './_common.ts';
import { createHonoApp } from './_hono-app.ts';

const server = serve(
  { fetch: createHonoApp().fetch, port: benchPort(), hostname: '127.0.0.1' },
  (info) => announce(info.port),
);
exitOnSignal(() => new Promise((resolve) => server.close(resolve)));
