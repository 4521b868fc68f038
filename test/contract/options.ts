/**
 * What `createPlantStore` refuses at construction (a `TypeError` for a misuse that type-checks) and
 * what it does by default.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { PlantRepository } from '../../lib/index.ts';
import { plantRequest, TOKEN } from '../support/web-fakes.ts';
import { defineCases, json } from './context.ts';

/** What `createPlantStore` refuses at construction, and its default repository. */
export const optionCases = defineCases('createPlantStore', (it) => {
  it('throws a TypeError when no verifier is given', (t) => {
    assert.throws(() => t.lib.createPlantStore({} as never), {
      name: 'TypeError',
      message: /needs a verifier/,
    });
  });

  it('throws a TypeError when an option is out of range', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    for (const options of [
      { maxBodyBytes: 0 },
      { maxBodyBytes: 1.5 },
      { timeoutMs: 0 },
      { timeoutMs: Number.POSITIVE_INFINITY },
      { timeoutMs: 2 ** 31 },
      { repository: {} as PlantRepository },
      { onError: 'log' as never },
    ]) {
      assert.throws(
        () => t.lib.createPlantStore({ verifier, ...options }),
        TypeError,
        json(options),
      );
    }
  });

  it('throws a TypeError naming an option it does not know, rather than ignoring it', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    // Built elsewhere, a misspelled option type-checks: TypeScript only refuses extra keys in a
    // literal written at the call.
    const options = { verifier, maxBodySize: 1_000_000 };
    assert.throws(() => t.lib.createPlantStore(options), {
      name: 'TypeError',
      message:
        'createPlantStore: unknown option "maxBodySize" (known: repository, verifier, maxBodyBytes, timeoutMs, onError, onTokenRejected, cors, basePath, publicUrl)',
    });
  });

  it('stores in memory when no repository is given', async (t) => {
    const store = t.lib.createPlantStore({ verifier: t.lib.createStaticTokenVerifier([TOKEN]) });
    const first = await t.send(store.handleCreatePlant, plantRequest(json({ id: 1, name: 'a' })));
    const conflict = await t.send(
      store.handleCreatePlant,
      plantRequest(json({ id: 1, name: 'b' })),
    );
    assert.equal(first.status, 200);
    assert.equal(conflict.status, 409);
  });
});
