/**
 * The framework matrix (`matrix.ts`) for Fastify 5, Express 5 and Hono: every cell answers as
 * the store's own `fetch` does, behind the host's CORS, security-headers and compression
 * plug-ins. The plug-ins come from this folder's own package (`npm ci --prefix test/frameworks`);
 * without it the matrix is skipped and says so. Express 4 runs the same cells in
 * `express4.test.ts`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import plantStore from '../../lib/fastify.ts';
import { mountStore } from '../support/mount-helpers.ts';

const skip = existsSync(new URL('./node_modules/@fastify/cors/', import.meta.url))
  ? false
  : "the hosts' plug-ins are not installed: npm ci --prefix test/frameworks (kept out of the main install) to run the framework matrix";
const matrix = skip === false ? await import('./matrix.ts') : undefined;

describe('the framework matrix', { skip }, () => {
  it('is refused at registration by Fastify 4, naming the version it needs', async () => {
    const { default: Fastify4 } = await import('fastify4');
    const app = Fastify4();
    app.register(plantStore as never, { store: mountStore().store });
    await assert.rejects(async () => app.ready(), {
      code: 'FST_ERR_PLUGIN_VERSION_MISMATCH',
      message:
        /^fastify-plugin: plant-store - expected '5\.x' fastify version, '4\.\d+\.\d+' is installed$/,
    });
  });

  for (const framework of ['Fastify', 'Express', 'Hono'] as const) {
    for (const cell of matrix?.cellsOf(framework) ?? []) {
      it(`answers as store.fetch does behind the host's plug-ins: ${matrix?.nameOf(cell)}`, () =>
        matrix?.assertCell(cell));
    }
  }
});
