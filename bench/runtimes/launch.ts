/**
 * Starting a Bun or Deno bench server as `bench/run.ts` starts a Node one: pinned to the server
 * core, `PORT=0`, resolved when it prints its ready line, killed for sure when the run ends. And
 * why a server cannot run here (a runtime, the satellite install or the build missing), with
 * the command that fixes it.
 *
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeBinaries } from '../../test/runtimes/binaries.ts';
import { BENCH_DIR, ROOT_DIR, type RunningServer, SERVER_CORE } from '../_harness.ts';
import { READY_PREFIX } from '../servers/_common.ts';
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
function commandOf(server: RuntimeServer): string[] {
  const file = join(RUNTIMES_DIR, 'servers', server.file);
  if (server.runtime === 'bun') return [RUNTIME_BINARY.bun, file];
  return [RUNTIME_BINARY.deno, 'run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', file];
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

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts `server` pinned to the server core, with plant-store's servers loading the build in
 * `dist`, and waits for its ready line, at most 20 s. Stop it with the harness's `stopServer`.
 */
export function startRuntimeServer(server: RuntimeServer, dist: string): Promise<RunningServer> {
  const child = spawn('taskset', ['-c', SERVER_CORE, ...commandOf(server)], {
    cwd: ROOT_DIR,
    env: {
      ...process.env,
      ...server.env,
      PORT: '0',
      NODE_ENV: 'production',
      PLANT_STORE_DIST: dist,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${server.name}: ${why}\n${stderr}`));
    };
    const timer = setTimeout(() => fail('no ready line within 20 s'), 20_000);
    const exited = (code: number | null): void => fail(`exited (${code}) before it was ready`);
    child.once('exit', exited);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const ready = new RegExp(`${READY_PREFIX}(\\S+)\\n`).exec(stdout);
      if (ready === null) return;
      clearTimeout(timer);
      child.off('exit', exited);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({
        name: server.name,
        child,
        pid: child.pid as number,
        url: ready[1] as string,
        stderr: () => stderr,
      });
    });
  });
}
