/**
 * `createRouter` in an app whose `express` is older than the router can serve (Express 3 had no
 * `express.raw` and no `req.baseUrl`): refused when the router is made, naming the fix, never on
 * the first request.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mountStore } from '../support/mount-helpers.ts';
import { swapPackage } from '../support/swap-package.ts';

// Express 3's module, as far as the router looks at it: a Router, no `raw`.
swapPackage('express', 'data:text/javascript,export default { Router() { return () => {}; } };');
const { createRouter } = await import('../../lib/express.ts');

describe('createRouter', () => {
  it('throws a TypeError naming the fix when the express found is older than 4.17', () => {
    assert.throws(() => createRouter(mountStore().store), {
      name: 'TypeError',
      message:
        'plant-store/express needs Express 4.17 or later (or 5); the express package it found ' +
        'is older: upgrade express, or serve the store with plant-store/node',
    });
  });
});
