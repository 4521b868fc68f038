import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runtimeBinaries } from '../runtimes/binaries.ts';
import { cliEnv, ROOT } from '../support/cli-helpers.ts';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';

// The register helpers in a real project of each runner besides node:test (which the rest of
// this folder uses): Bun and Deno from the runtimes' package, Vitest and Jest from this
// folder's own locked package. Each project registers the memory repository and the static
// verifier (all pass), then a repository that rounds ids through Number (the run fails, naming
// the int64 rule).
const RUNNERS = fileURLToPath(new URL('./runners/', import.meta.url));
const KIT = `${RUNNERS}.kit/`;
const NO_RUNTIMES = 'Bun and Deno come from the runtimes package: npm run install:runtimes';
const NO_RUNNERS =
  'Vitest and Jest come from their own package: npm ci --prefix test/testing/runners';
const ROUNDED =
  'int64: id 9007199254740993 answered {"created": false, "existing": {"name": "plant 9007199254740992"}}';

const children: Child[] = [];
after(() => {
  for (const child of children) child.kill();
  rmSync(KIT, { recursive: true, force: true });
});

/** Runs a runner's command to its end. */
async function run(command: string, args: readonly string[], cwd = ROOT) {
  const child = spawnChild(command, args, cliEnv({ NO_COLOR: '1' }), cwd);
  children.push(child);
  const code = await withDeadline(child.exited, `${command} ${args.join(' ')}`, 120_000);
  // Matched as plain text, whatever colours a runner uses (ANSI escapes start with U+001B).
  // oxlint-disable-next-line no-control-regex
  const output = `${child.stdout()}${child.stderr()}`.replace(/\x1b\[[0-9;]*m/g, '');
  return { code, output };
}

/** Asserts one project passed with `passed` tests, and its mistaken twin failed on int64. */
async function assertRunner(
  runOne: (file: 'kit' | 'mistaken') => Promise<{ code: number | string; output: string }>,
  passed: RegExp,
  failed: RegExp,
): Promise<void> {
  const kit = await runOne('kit');
  assert.equal(kit.code, 0, kit.output);
  assert.match(kit.output, passed);
  const mistaken = await runOne('mistaken');
  assert.equal(mistaken.code, 1, mistaken.output);
  assert.match(mistaken.output, failed);
  assert.ok(mistaken.output.includes(ROUNDED), mistaken.output);
}

describe('the register helpers in each test runner', () => {
  it(
    'registers every check as a bun test, and fails the run when a check fails',
    { skip: existsSync(runtimeBinaries.bun) ? false : NO_RUNTIMES },
    () =>
      assertRunner(
        (file) => run(runtimeBinaries.bun, ['test', `test/testing/runners/bun/${file}.test.ts`]),
        /\n 27 pass\n 0 fail\n/,
        /\n 18 pass\n 4 fail\n/,
      ),
  );

  it(
    'registers every check with Deno.test, and fails the run when a check fails',
    { skip: existsSync(runtimeBinaries.deno) ? false : NO_RUNTIMES },
    () =>
      assertRunner(
        (file) =>
          run(runtimeBinaries.deno, [
            'test',
            '--allow-net=127.0.0.1',
            '--allow-read',
            `test/testing/runners/deno/${file}.test.ts`,
          ]),
        /ok \| 28 passed \| 0 failed/,
        /FAILED \| 18 passed \| 4 failed/,
      ),
  );

  it(
    'registers every check as a Vitest test, and fails the run when a check fails',
    { skip: existsSync(`${RUNNERS}node_modules/vitest`) ? false : NO_RUNNERS },
    () =>
      assertRunner(
        (file) =>
          run(
            process.execPath,
            ['node_modules/vitest/vitest.mjs', 'run', `vitest/${file}.test.ts`],
            RUNNERS,
          ),
        /Tests {2}26 passed \(26\)/,
        /Tests {2}4 failed \| 18 passed \(22\)/,
      ),
  );

  it(
    'registers every check as a Jest test, and fails the run when a check fails',
    { skip: existsSync(`${RUNNERS}node_modules/jest`) ? false : NO_RUNNERS },
    async () => {
      // Jest runs plain JavaScript without a transform: the package as built, bundled here.
      await build({
        entryPoints: { index: `${ROOT}lib/index.ts`, testing: `${ROOT}lib/testing.ts` },
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'neutral',
        mainFields: ['module', 'main'],
        outdir: KIT,
        tsconfigRaw: {},
        logLevel: 'silent',
      });
      await assertRunner(
        (file) =>
          run(
            process.execPath,
            [
              '--experimental-vm-modules',
              'node_modules/jest/bin/jest.js',
              '--config',
              'jest/jest.config.json',
              '--rootDir',
              'jest',
              `${file}\\.test`,
            ],
            RUNNERS,
          ),
        /Tests: {7}26 passed, 26 total/,
        /Tests: {7}4 failed, 18 passed, 22 total/,
      );
    },
  );
});
