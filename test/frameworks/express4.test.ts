/**
 * The framework matrix's Express cells and `createErrorHandler`'s cases in Express 4, as an app
 * that installed Express 4 has it: every `import 'express'` in this process, plant-store's own
 * included, resolves to Express 4 from this folder's own package (`npm ci --prefix
 * test/frameworks`); without it the cells are skipped and say so.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { swapPackage } from '../support/swap-package.ts';

const installed = existsSync(new URL('./node_modules/express4/', import.meta.url));
const skip = installed
  ? false
  : 'Express 4 is not installed: npm ci --prefix test/frameworks (kept out of the main install) to run its cells';
if (installed) {
  swapPackage('express', pathToFileURL(createRequire(import.meta.url).resolve('express4')).href);
}
const matrix = installed ? await import('./matrix.ts') : undefined;
const express = installed ? (await import('express')).default : undefined;
const { createRouter } = await import('../../lib/express.ts');
const { mountStore } = await import('../support/mount-helpers.ts');
const { UNDECODABLE_MOUNT_CASES } = await import('../express/undecodable-mount.ts');

describe('the framework matrix in Express 4', { skip }, () => {
  it("makes its router with Express 4's own Router", () => {
    const version = createRequire(import.meta.url)('express4/package.json') as { version: string };
    assert.match(version.version, /^4\./);
    // Express 5 dropped `express.query`; Express 4's module still has it.
    assert.equal(typeof (express as unknown as { query?: unknown }).query, 'function');
    // Express 4's Router() returns a function whose prototype is Router itself.
    assert.equal(Object.getPrototypeOf(createRouter(mountStore().store)), express?.Router);
  });

  for (const cell of matrix?.cellsOf('Express') ?? []) {
    it(`answers as store.fetch does behind the host's plug-ins: ${matrix?.nameOf(cell)} in Express 4`, () =>
      matrix?.assertCell(cell, express));
  }
});

describe('createErrorHandler in Express 4', { skip }, () => {
  for (const { name, run } of UNDECODABLE_MOUNT_CASES) it(`${name}, in Express 4`, run);
});
