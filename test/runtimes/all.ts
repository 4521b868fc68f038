/**
 * The cross-runtime run: `deno check lib/index.ts lib/testing.ts lib/client.ts`, then the
 * contract's case list and the client's checks on Node 20 (this Node, through tsx), Node 22 and
 * 24, Deno, Bun and Cloudflare's workerd (all five from `versions/`, see `binaries.ts`), one
 * after the other, the Workers guide's project through wrangler (`wrangler.ts`), and the
 * conformance kit under `Deno.test` and `bun test`. `npm run test:runtimes [-- dist]`; the argument picks
 * the library (`lib`, the default, or the built `dist`). Everything runs from what `npm ci`
 * installed: nothing is downloaded. Exits 1 when any run fails.
 *
 * @module
 */

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeBinaries } from './binaries.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const which = process.argv[2] ?? 'lib';
const stripTypes = ['--disable-warning=ExperimentalWarning', 'test/runtimes/node.ts', which];

const runs: Array<{ label: string; command: string; args: string[] }> = [
  {
    label: 'deno check',
    command: runtimeBinaries.deno,
    args: ['check', 'lib/index.ts', 'lib/testing.ts', 'lib/client.ts'],
  },
  {
    label: 'Node 20',
    command: process.execPath,
    args: ['--import', 'tsx', 'test/runtimes/node.ts', which],
  },
  { label: 'Node 22', command: runtimeBinaries.node22, args: stripTypes },
  { label: 'Node 24', command: runtimeBinaries.node24, args: stripTypes },
  {
    label: 'Deno',
    command: runtimeBinaries.deno,
    args: [
      'run',
      '--cached-only',
      '--allow-net=127.0.0.1',
      '--allow-read',
      'test/runtimes/deno.ts',
      which,
    ],
  },
  { label: 'Bun', command: runtimeBinaries.bun, args: ['test/runtimes/bun.ts', which] },
  // Workers are driven from this Node: it bundles them, starts workerd and calls them.
  {
    label: 'Cloudflare workerd',
    command: process.execPath,
    args: ['--import', 'tsx', 'test/runtimes/workerd.ts', which],
  },
  // The Workers guide's project through wrangler itself, on Node 24: types, deploy's bundle, dev.
  {
    label: 'Cloudflare wrangler (the Workers guide)',
    command: process.execPath,
    args: ['--import', 'tsx', 'test/runtimes/wrangler.ts', which],
  },
  // plant-store/testing's register helpers in each runtime's own runner (on lib/).
  {
    label: 'Deno.test with plant-store/testing',
    command: runtimeBinaries.deno,
    args: [
      'test',
      '--allow-net=127.0.0.1',
      '--allow-read',
      'test/testing/runners/deno/kit.test.ts',
    ],
  },
  {
    label: 'bun test with plant-store/testing',
    command: runtimeBinaries.bun,
    args: ['test', 'test/testing/runners/bun/kit.test.ts'],
  },
];

let passed = 0;
let failed = 0;
for (const { label, command, args } of runs) {
  if (!existsSync(command)) {
    // Node 22 and 24 are Linux x64 packages (see versions/package.json); elsewhere they are
    // skipped, but never in CI, which runs on Linux x64.
    if (process.env.CI || (process.platform === 'linux' && process.arch === 'x64')) {
      console.log(`${label}: ${command} is missing: run npm run install:runtimes`);
      failed += 1;
    } else {
      console.log(`${label}: skipped, no binary for ${process.platform}-${process.arch}`);
    }
    continue;
  }
  console.log(`\n== ${label}`);
  const started = performance.now();
  const { status, error } = spawnSync(command, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (status === 0) {
    passed += 1;
    console.log(`== ${label}: ok (${seconds} s)`);
  } else {
    failed += 1;
    console.log(
      `== ${label}: FAILED (exit ${status}${error ? `, ${error.message}` : ''}, ${seconds} s)`,
    );
  }
}
console.log(`\nruntimes: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
