/** Hono 4 on Deno: the shared Hono app's `fetch` as the `Deno.serve` handler. */
import { createRuntimeHonoApp } from './_hono-app.ts';
import { serveOnDeno } from './_runtime.ts';

serveOnDeno(createRuntimeHonoApp().fetch);
