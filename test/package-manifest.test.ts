/**
 * What `package.json` promises an installer: nothing runs at install time, and the files the
 * tests and the build need are made by their own scripts instead.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('package.json', () => {
  it('has no install-time script, so installing plant-store runs nothing', () => {
    // npm warns on every install of a package with one, and a host's install should run no code
    // of ours (npm runs `prepare` on a clone's install, and for git dependencies).
    for (const name of ['preinstall', 'install', 'postinstall', 'prepare']) {
      assert.equal(manifest.scripts[name], undefined, `the "${name}" script`);
    }
  });

  it('packs the reference page renderer before the typecheck (and so npm test) and the build', () => {
    // lib/docs imports the packed renderer, which is git-ignored: a clean `npm ci` has none.
    assert.match(manifest.scripts.typecheck ?? '', /^npm run docs:assets --silent && /);
    assert.match(manifest.scripts.test ?? '', /^npm run typecheck && /);
    assert.match(manifest.scripts.build ?? '', /npm run docs:assets && /);
    assert.match(manifest.scripts.prestart ?? '', /npm run build/);
  });
});
