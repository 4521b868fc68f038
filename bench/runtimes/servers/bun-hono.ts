/** Hono 4 on Bun: the shared Hono app's `fetch` as the `Bun.serve` handler. */
import { createRuntimeHonoApp } from './_hono-app.ts';
import { serveOnBun } from './_runtime.ts';

serveOnBun(createRuntimeHonoApp().fetch);
