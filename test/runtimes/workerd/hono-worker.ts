/**
 * A Hono app as the Worker, mounting the stores as the README's Hono recipe does: the request
 * handed on unchanged. `runner` runs the cases through it.
 *
 * @module
 */

import { Hono } from 'hono';
import { router } from './cases.ts';

export { runner } from './cases.ts';

const app = new Hono();
app.mount('/', router.fetch, { replaceRequest: false });

export default app;
