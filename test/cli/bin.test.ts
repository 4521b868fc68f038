/**
 * The README's production command, as an installed user runs it: the `plant-store` package built
 * into a `node_modules` of its own, and `node node_modules/plant-store/bin/plant-store.js`
 * started there. A process manager signals that PID, so SIGTERM must stop the server gracefully.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cliEnv, postPlant, READY, ROOT } from '../support/cli-helpers.ts';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';

/** The README's command for production. */
const COMMAND = 'node node_modules/plant-store/bin/plant-store.js';

describe('the plant-store bin, as the README runs it in production', () => {
  let app: string;
  const children: Child[] = [];
  before(async () => {
    // An app folder holding plant-store as npm installs it: the package.json, bin/ and dist/.
    app = mkdtempSync(join(tmpdir(), 'plant-store-bin-'));
    const installed = join(app, 'node_modules', 'plant-store');
    mkdirSync(installed, { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    cpSync(join(ROOT, 'bin'), join(installed, 'bin'), { recursive: true });
    symlinkSync(
      realpathSync(join(ROOT, 'node_modules', 'valibot')),
      join(app, 'node_modules', 'valibot'),
    );
    await withDeadline(
      promisify(execFile)(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '-p',
          join(ROOT, 'tsconfig.build.json'),
          '--outDir',
          join(installed, 'dist'),
          // Only what runs: no declarations or source maps.
          '--declaration',
          'false',
          '--sourceMap',
          'false',
          '--inlineSources',
          'false',
        ],
        { cwd: ROOT },
      ),
      'building plant-store into the app folder',
      120_000,
    );
  });
  after(() => {
    for (const child of children) child.kill();
    rmSync(app, { recursive: true, force: true });
  });

  it('is the command the README gives for production', () => {
    assert.ok(readFileSync(join(ROOT, 'README.md'), 'utf8').includes(COMMAND));
  });

  it('stops gracefully and exits 0 when its PID gets SIGTERM', async () => {
    // `npx plant-store` did not pass SIGTERM on: npm exited and the server kept listening.
    const [node, ...args] = COMMAND.split(' ');
    assert.equal(node, 'node');
    const child = spawnChild(
      process.execPath,
      args,
      cliEnv({ PORT: '0', PLANT_STORE_TOKENS: 'tok', PLANT_STORE_LOG: 'json' }),
      app,
    );
    children.push(child);
    const [, url] = await child.line(READY, 'the readiness line');
    assert.equal((await postPlant(url as string, 'tok', { id: 1, name: 'Fern' })).status, 200);
    process.kill(child.process.pid as number, 'SIGTERM');
    assert.equal(await withDeadline(child.exited, 'the exit after SIGTERM'), 0);
    assert.match(child.stdout(), /"msg":"stopping: no new connections/);
    assert.match(child.stdout(), /"msg":"stopped"/);
    await assert.rejects(fetch(url as string), 'nothing listens any more');
  });
});
