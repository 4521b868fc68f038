/**
 * The framework matrix (`matrix.ts`) for Fastify 5, Express 5 and Hono: every cell answers as
 * the store's own `fetch` does, behind the host's CORS, security-headers and compression
 * plug-ins. The plug-ins come from this folder's own package (`npm ci --prefix test/frameworks`);
 * without it the matrix is skipped and says so.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';

const skip = existsSync(new URL('./node_modules/@fastify/cors/', import.meta.url))
  ? false
  : "the hosts' plug-ins are not installed: npm ci --prefix test/frameworks (kept out of the main install) to run the framework matrix";
const matrix = skip === false ? await import('./matrix.ts') : undefined;

describe('the framework matrix', { skip }, () => {
  for (const framework of ['Fastify', 'Express', 'Hono'] as const) {
    for (const cell of matrix?.cellsOf(framework) ?? []) {
      it(`answers as store.fetch does behind the host's plug-ins: ${matrix?.nameOf(cell)}`, () =>
        matrix?.assertCell(cell));
    }
  }
});
