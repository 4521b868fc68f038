/**
 * What `package.json` promises an installer: nothing runs at install time, nothing of a
 * dependency's reports home, and the files the tests and the build need are made by their own
 * scripts instead.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

const root = fileURLToPath(new URL('..', import.meta.url));
const scarf = fileURLToPath(new URL('../node_modules/@scarf/scarf/', import.meta.url));
// Scarf gives `npm ls` 3 s and reports nothing past them: lifted, so a busy machine still decides.
const npmLsUnhurried =
  'data:text/javascript,import cp from "node:child_process"; const exec = cp.exec; ' +
  'cp.exec = (command, options, done) => exec(command, { ...options, timeout: 0 }, done);';

/**
 * Runs `@scarf/scarf`'s postinstall as npm runs it when it installs the project at `project`,
 * its report sent to a local port instead of scarf.sh: the reports it sent.
 */
async function scarfReports(project: string): Promise<number> {
  let reports = 0;
  const server = createServer((_req, res) => {
    reports++;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  // The user's own opt-outs would hide what the project's package.json decides.
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: project };
  for (const name of ['SCARF_ANALYTICS', 'SCARF_NO_ANALYTICS', 'DO_NOT_TRACK']) delete env[name];
  const port = String((server.address() as AddressInfo).port);
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', npmLsUnhurried, 'report.js'],
        {
          cwd: scarf,
          env: { ...env, SCARF_LOCAL_PORT: port },
          timeout: 60_000,
        },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  } finally {
    server.close();
  }
  return reports;
}

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

  it(
    "turns off a dependency's Scarf install report, so a clone's install sends nothing home",
    {
      skip: existsSync(join(scarf, 'report.js'))
        ? false
        : 'no dependency brings @scarf/scarf (swagger-ui-dist did) into this install',
    },
    async (t) => {
      // The same install under a package.json without the setting reports: the silence is the
      // setting's, not the harness's.
      const unset = mkdtempSync(join(tmpdir(), 'plant-store-scarf-'));
      t.after(() => rmSync(unset, { recursive: true, force: true }));
      const { scarfSettings: _, ...rest } = JSON.parse(
        readFileSync(join(root, 'package.json'), 'utf8'),
      ) as Record<string, unknown>;
      writeFileSync(join(unset, 'package.json'), JSON.stringify(rest));
      symlinkSync(join(root, 'node_modules'), join(unset, 'node_modules'));
      const [withoutSetting, asCloned] = await Promise.all([
        scarfReports(unset),
        scarfReports(root),
      ]);
      assert.equal(withoutSetting, 1);
      assert.equal(asCloned, 0);
    },
  );
});
