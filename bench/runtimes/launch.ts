/**
 * Starting a Bun or Deno bench server as `bench/run.ts` starts a Node one: pinned to the server
 * core, `PORT=0`, resolved when it prints its ready line, killed for sure when the run ends. And
 * why a server cannot run here (a runtime, the satellite install or the build missing), with
 * the command that fixes it.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeBinaries } from '../../test/runtimes/binaries.ts';
import { BENCH_DIR, ROOT_DIR, type RunningServer, startProcess } from '../_harness.ts';
import type { Runtime, RuntimeServer } from './catalog.ts';

/** This folder: the satellite package and the servers. */
export const RUNTIMES_DIR = join(BENCH_DIR, 'runtimes');
/** The build plant-store's servers load unless `--dist` names another. */
export const DEFAULT_DIST = join(ROOT_DIR, 'dist');

/** Each runtime's binary, from the runtimes' own package (`test/runtimes/binaries.ts`). */
export const RUNTIME_BINARY: Readonly<Record<Runtime, string>> = {
  bun: runtimeBinaries.bun,
  deno: runtimeBinaries.deno,
};

/** How each runtime runs a server file: Deno with no more permission than a server needs. */
function argumentsOf(server: RuntimeServer): string[] {
  const file = join(RUNTIMES_DIR, 'servers', server.file);
  if (server.runtime === 'bun') return [file];
  return ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', file];
}

/** Why `server` cannot run on this machine, with the command that fixes it; undefined if it can. */
export function missingFor(server: RuntimeServer, dist: string): string | undefined {
  const binary = RUNTIME_BINARY[server.runtime];
  if (!existsSync(binary)) {
    return `${server.runtime} is not installed (${binary}): run npm run install:runtimes`;
  }
  if (server.needs === 'satellite' && !existsSync(join(RUNTIMES_DIR, 'node_modules', 'elysia'))) {
    return 'the frameworks are not installed: run npm run install:bench-runtimes';
  }
  if (server.needs === 'dist' && !existsSync(join(dist, 'index.js'))) {
    return `no build at ${dist}: run npm run build`;
  }
  return undefined;
}

/**
 * Starts `server` pinned to the server core, with plant-store's servers loading the build in
 * `dist`, and waits for its ready line, at most 20 s (the harness's `startProcess`). Stop it
 * with the harness's `stopServer`.
 */
export function startRuntimeServer(server: RuntimeServer, dist: string): Promise<RunningServer> {
  return startProcess(
    server.name,
    argumentsOf(server),
    { ...process.env, ...server.env, PLANT_STORE_DIST: dist },
    RUNTIME_BINARY[server.runtime],
  );
}
