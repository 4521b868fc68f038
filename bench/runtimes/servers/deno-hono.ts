/** Hono 4 on Deno: the shared Hono app's `fetch` as the `Deno.serve` handler. */
import { createHonoApp } from '../../servers/_hono-app.ts';
import { serveHere } from './_runtime.ts';

serveHere(createHonoApp().fetch);
