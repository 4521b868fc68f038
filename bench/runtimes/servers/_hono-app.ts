/**
 * The Hono app `bench/` serves on Node (`bench/servers/_hono-app.ts`, written with Hono's own
 * middleware), with the one route it lacks for the runtimes' check: `405` for another method
 * on `/plants`. Its ids go through `validator('json')`, that is `JSON.parse`, as Hono's users
 * write it: ids past 2^53 are not kept exact.
 *
 * @module
 */

import type { Hono } from 'hono';
import { errorBody } from '../../servers/_common.ts';
import { createHonoApp } from '../../servers/_hono-app.ts';

/** The shared Hono app, answering `405` to a method `/plants` does not take. */
export function createRuntimeHonoApp(): Hono {
  const app = createHonoApp();
  app.all(
    '/plants',
    () =>
      new Response(errorBody(405, 'method not allowed'), {
        status: 405,
        headers: { 'content-type': 'application/json', allow: 'POST' },
      }),
  );
  return app;
}
