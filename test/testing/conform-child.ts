/**
 * `plant-store conform …` as the bin runs it, on lib/ through tsx, in a child process of its own.
 *
 * @module
 */

import { cliEnv, ROOT } from '../support/cli-helpers.ts';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';

/** A finished run: its exit code and output. */
export interface ConformRun {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `plant-store conform` with `args` to its end.
 *
 * @param args The arguments after `conform`.
 * @param children Where the child is kept, for the caller's `after` to kill.
 * @returns The run.
 */
export async function conform(args: readonly string[], children: Child[]): Promise<ConformRun> {
  const script =
    "import { runConform } from './lib/cli/conform.ts'; process.exit(await runConform(process.argv.slice(1)));";
  const child = spawnChild(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script, '--', ...args],
    cliEnv({}),
    ROOT,
  );
  children.push(child);
  const code = await withDeadline(child.exited, 'plant-store conform', 60_000);
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}
