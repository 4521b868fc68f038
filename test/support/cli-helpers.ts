/**
 * Starting the standalone server (`lib/cli/main.ts`) as a child process, as its users do,
 * and talking to it: its ready line, its log lines, a create, a bad-setting exit.
 *
 * @module
 */

import { fileURLToPath } from 'node:url';
import { type Child, pollUntil, spawnChild, withDeadline } from './node-helpers.ts';

/** The repository root, where `lib/cli/main.ts` runs from. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The standalone server's readiness line, which names the API's URL; groups: its origin, the
 * port, and the base path when there is one (`/api`).
 */
export const READY = /^plant-store listening on (http:\/\/127\.0\.0\.1:(\d+))(\/\S+)?$/;
/** How long `npm start` may take to be ready: it builds the package (tsc) before it serves. */
export const NPM_START_MS = 90_000;

/**
 * The parent's environment without anything that would change the server's settings, plus
 * `env`. `NODE_V8_COVERAGE` stays, so c8 covers the child.
 */
export function cliEnv(env: Record<string, string>): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['PORT', 'HOST', 'NODE_TEST_CONTEXT', 'DATABASE_URL']) delete base[name];
  for (const name of Object.keys(base)) if (name.startsWith('PLANT_STORE_')) delete base[name];
  return { ...base, ...env };
}

/**
 * Starts `lib/cli/main.ts` as a child process with `env` (and any extra node flags before the
 * script) and records it in `children`, for an `after` hook to kill.
 */
export function startCli(
  env: Record<string, string>,
  children: Child[],
  nodeFlags: readonly string[] = [],
): Child {
  const child = spawnChild(
    process.execPath,
    ['--import', 'tsx', ...nodeFlags, 'lib/cli/main.ts'],
    cliEnv(env),
    ROOT,
  );
  children.push(child);
  return child;
}

/**
 * `POST /plants` with a bearer token and a JSON body, raced against a deadline; `signal` aborts
 * it, as a load that stops does.
 */
export function postPlant(
  url: string,
  token: string,
  body: unknown,
  deadlineMs?: number,
  signal?: AbortSignal,
): Promise<Response> {
  return withDeadline(
    fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    }),
    `POST ${url}/plants`,
    deadlineMs,
  );
}

/** Asserts the child exited with `code`, printed nothing on stdout and one line on stderr. */
export async function exitsWithOneLine(child: Child, code: number, what: string): Promise<string> {
  const exitCode = await withDeadline(child.exited, `the exit: ${what}`, 15_000);
  const stderr = child.stderr();
  if (exitCode !== code || child.stdout() !== '' || !/^plant-store: [^\n]+\n$/.test(stderr)) {
    throw new Error(
      `${what}: expected exit ${code}, no stdout and one stderr line; got exit ${exitCode}, stdout ${JSON.stringify(child.stdout())}, stderr ${JSON.stringify(stderr)}`,
    );
  }
  return stderr;
}

/**
 * Runs `check` on every case, a few child processes at a time: a dozen servers started at once
 * on a busy two-core machine each take longer than a test's deadline to load.
 */
export async function eachFewAtATime<T>(cases: readonly T[], check: (item: T) => Promise<void>) {
  for (let i = 0; i < cases.length; i += 4) await Promise.all(cases.slice(i, i + 4).map(check));
}

/** The child's stdout lines that are JSON log lines, parsed. */
export function logLines(child: Child): Record<string, unknown>[] {
  return child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits until a JSON log line satisfies `match`, and returns it. */
export function logLine(
  child: Child,
  match: (line: Record<string, unknown>) => boolean,
  what: string,
  ms?: number,
): Promise<Record<string, unknown>> {
  return pollUntil(() => logLines(child).find(match), what, ms);
}
