/**
 * The machine and the versions a runtimes run names in its output, so that a table can be
 * compared with another only when they match: CPU, cores, Bun, Deno, Node, wrk, the frameworks
 * and which plant-store build was served.
 *
 * @module
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT_DIR } from '../_harness.ts';
import { RUNTIME_BINARY, RUNTIMES_DIR } from './launch.ts';

/** The first line a command prints, or `unavailable` when it cannot run. */
function firstLine(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  const out = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0];
  return result.error === undefined && out ? out : 'unavailable';
}

/** A package's version as installed under `nodeModules`, or `not installed`. */
function packageVersion(nodeModules: string, name: string): string {
  const file = join(nodeModules, name, 'package.json');
  if (!existsSync(file)) return 'not installed';
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * What a build is: when it was made, and the `HEAD` of its checkout now (`+dirty lib/` with
 * changes in `lib/`), which is what it was built from unless `lib/` changed since.
 */
function describeBuild(dist: string): string {
  const entry = join(dist, 'index.js');
  if (!existsSync(entry)) return `${entry}, not built`;
  const checkout = dirname(dist);
  const head = firstLine('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD']);
  const dirty = spawnSync('git', ['-C', checkout, 'diff', '--quiet', 'HEAD', '--', 'lib']);
  const built = statSync(entry).mtime.toISOString().slice(0, 16).replace('T', ' ');
  return `${entry}, built ${built} UTC in a checkout at ${head}${dirty.status === 1 ? '+dirty lib/' : ''}`;
}

/** The lines that say where and with what a run ran. */
export function describeSetup(dist: string): string[] {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const satellite = join(RUNTIMES_DIR, 'node_modules');
  return [
    `machine: ${cpus().length} × ${cpu} (nproc ${cpus().length})`,
    `Bun ${firstLine(RUNTIME_BINARY.bun, ['--version'])}; ` +
      `${firstLine(RUNTIME_BINARY.deno, ['--version'])}; Node ${process.version}; ` +
      `${firstLine('wrk', ['-v']).replace(/ \[.*$/, '')}`,
    `elysia ${packageVersion(satellite, 'elysia')} (bench/runtimes); hono ` +
      `${packageVersion(join(ROOT_DIR, 'node_modules'), 'hono')} as bench/servers/_hono-app.ts ` +
      `loads it (the satellite pins ${packageVersion(satellite, 'hono')})`,
    `plant-store: ${describeBuild(dist)}`,
  ];
}
