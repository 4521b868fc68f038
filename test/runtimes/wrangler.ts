/**
 * The Workers guide's own project, run the way its reader runs it. `examples/cloudflare-worker/`
 * (`wrangler.jsonc`, `tsconfig.json`, `src/index.ts`, as docs/workers.md shows them) is copied
 * into a temporary folder with plant-store installed there as `npm install <clone>` would (a
 * link: the build, for `dist`; for `lib`, a one-module package that re-exports the source), and
 * a `.dev.vars` with the token. Then, with the wrangler pinned in `versions/` on its
 * Node 24 (wrangler 4 needs Node 22.12 or later): `wrangler types` and the project's type check,
 * `wrangler deploy --dry-run` (the bundle a deploy would upload), and `wrangler dev` on 127.0.0.1,
 * against which `plant-store conform` must pass every check, the `Date` of every answer among
 * them. Nothing leaves the machine: wrangler's metrics, error reports, update checks and its
 * fetch of `request.cf` are turned off, and its files go to the temporary folder. Each wrangler
 * runs in a process group of its own, stopped by its id, and the run fails if any process of the
 * group outlives it. `node --import tsx test/runtimes/wrangler.ts [lib|dist]`; exits 1 when
 * anything fails.
 *
 * @module
 */

import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { type Child, spawnChild, withDeadline } from '../support/node-helpers.ts';
import { runtimeBinary } from './binaries.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const which = process.argv[2] ?? 'lib';
if (which !== 'lib' && which !== 'dist') throw new TypeError(`'lib' or 'dist', not ${which}`);
const GUIDE = join(root, 'examples', 'cloudflare-worker');
const TOKEN = 'wrangler-guide-token';
/** Each wrangler command's time, starting its runtime included, before the run fails. */
const COMMAND_MS = 90_000;
/** The whole run's time: past it, every wrangler still running is stopped and the run fails. */
const RUN_MS = 300_000;

const dir = mkdtempSync(join(tmpdir(), 'plant-store-wrangler-'));
const project = join(dir, 'project');
const node24 = runtimeBinary('node24');
const wrangler = runtimeBinary('wrangler');

/** The environment wrangler runs in: its files in `dir`, and nothing sent anywhere. */
function wranglerEnv(): Record<string, string | undefined> {
  const temp = join(dir, 'tmp');
  // wrangler asks the npm registry for a newer version when it reports an error; a fresh answer
  // in its cache (under its temporary folder) is all it asks for.
  mkdirSync(join(temp, 'update-check'), { recursive: true });
  writeFileSync(
    join(temp, 'update-check', 'wrangler-latest.json'),
    JSON.stringify({ latest: null, lastUpdate: Date.now() }),
  );
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    XDG_CONFIG_HOME: join(dir, 'config'),
    WRANGLER_LOG_PATH: join(dir, 'logs'),
    TMPDIR: temp,
    NO_COLOR: '1',
  };
}

/** The guide's project, as its reader has it after `npm install`. */
function makeProject(): void {
  for (const file of ['wrangler.jsonc', 'tsconfig.json', 'src/index.ts']) {
    cpSync(join(GUIDE, file), join(project, file), { recursive: true });
  }
  writeFileSync(join(project, '.dev.vars'), `API_TOKEN=${TOKEN}\n`);
  const installed = join(project, 'node_modules', 'plant-store');
  mkdirSync(join(project, 'node_modules'));
  if (which === 'dist') {
    symlinkSync(root, installed, 'dir');
    return;
  }
  // The source is no package: a package of one module that re-exports it stands in.
  mkdirSync(installed);
  writeFileSync(
    join(installed, 'package.json'),
    JSON.stringify({ name: 'plant-store', type: 'module', exports: './index.ts' }),
  );
  writeFileSync(
    join(installed, 'index.ts'),
    `export * from ${JSON.stringify(join(root, 'lib', 'index.ts'))};\n`,
  );
}

const running = new Set<Child>();

/** Runs wrangler in the project; resolves once `until` is printed, or when it exits. */
async function runWrangler(args: readonly string[], until?: RegExp): Promise<Child> {
  const child = spawnChild(node24, [wrangler, ...args], wranglerEnv(), project, { detached: true });
  running.add(child);
  if (until !== undefined) {
    try {
      await child.line(until, `wrangler ${args[0]} printing ${until}`, COMMAND_MS);
    } catch (error) {
      await stop(child);
      throw new Error(`${(error as Error).message}\n${child.stdout()}\n${child.stderr()}`);
    }
    return child;
  }
  try {
    const code = await withDeadline(child.exited, `wrangler ${args.join(' ')}`, COMMAND_MS);
    if (code !== 0) {
      throw new Error(`wrangler ${args[0]} exited ${code}:\n${child.stdout()}\n${child.stderr()}`);
    }
    return child;
  } finally {
    await stop(child);
  }
}

/** The ids of the processes still in a group. */
function groupMembers(group: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command's closing parenthesis: state, parent, group.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === group) members.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return members;
}

/** Stops a wrangler's group by its id; fails if a process of it still runs a few seconds on. */
async function stop(child: Child): Promise<void> {
  running.delete(child);
  const group = child.process.pid as number;
  child.kill();
  await withDeadline(child.exited, 'wrangler exiting', 10_000);
  for (let tries = 0; tries < 50; tries++) {
    const left = groupMembers(group);
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = groupMembers(group);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  throw new Error(`processes ${left.join(', ')} of wrangler's group outlived it`);
}

/** `tsc -p` on the project's own tsconfig.json, after `wrangler types`. */
function typeCheck(): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(project, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json does not parse');
  const options =
    which === 'lib'
      ? {
          ...config.options,
          paths: { 'plant-store': [join(root, 'lib', 'index.ts')] },
          allowImportingTsExtensions: true,
        }
      : config.options;
  const program = ts.createProgram(config.fileNames, options);
  // The source's own errors under Workers' types are no reader's: they see its declarations.
  const source = join(root, 'lib');
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter(({ file }) => which === 'dist' || !file?.fileName.startsWith(source));
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => project,
    getNewLine: () => '\n',
  });
}

/** `plant-store conform` against the Worker; resolves to its output. */
async function conform(url: string): Promise<{ code: number; output: string }> {
  const entry =
    which === 'dist'
      ? join(root, 'dist', 'cli', 'conform.js')
      : join(root, 'lib', 'cli', 'conform.ts');
  const { runConform } = (await import(
    pathToFileURL(entry).href
  )) as typeof import('../../lib/cli/conform.ts');
  let output = '';
  const write = (text: string) => {
    output += text;
  };
  const code = await runConform([url, '--token', TOKEN], {
    stdout: { write },
    stderr: { write },
  });
  return { code, output };
}

let passed = 0;
let failed = 0;
/** Runs one check, printing `ok` or `not ok` and why. */
async function check(name: string, body: () => Promise<string | void>): Promise<void> {
  const started = performance.now();
  try {
    const note = await body();
    passed += 1;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`ok - ${name} (${seconds} s)${note ? `: ${note}` : ''}`);
  } catch (error) {
    failed += 1;
    console.log(`not ok - ${name}`);
    console.log(String((error as Error)?.stack ?? error).replace(/^/gm, '    '));
  }
}

const overall = setTimeout(() => {
  console.log(`not ok - the run took over ${RUN_MS / 1000} s`);
  for (const child of running) child.kill();
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}, RUN_MS);

console.log(`wrangler (${which}): the Workers guide's project, examples/cloudflare-worker/`);
try {
  makeProject();
  await check(
    'wrangler types declares the API_TOKEN secret, and the project type-checks',
    async () => {
      await runWrangler(['types']);
      const declared = readFileSync(join(project, 'worker-configuration.d.ts'), 'utf8');
      if (!/^\s*API_TOKEN: string;$/m.test(declared)) {
        throw new Error('worker-configuration.d.ts declares no API_TOKEN: string');
      }
      const errors = typeCheck();
      if (errors !== '') throw new Error(errors);
    },
  );
  await check('wrangler deploy --dry-run bundles the Worker', async () => {
    const child = await runWrangler(['deploy', '--dry-run', '--outdir', join(dir, 'out')]);
    return /Total Upload: .*/.exec(child.stdout())?.[0];
  });
  await check('plant-store conform passes against wrangler dev', async () => {
    const dev = await runWrangler(
      [
        'dev',
        '--local',
        '--ip',
        '127.0.0.1',
        '--port',
        '0',
        '--inspector-port',
        '0',
        '--show-interactive-dev-session=false',
      ],
      /Ready on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    try {
      const [, url] = dev.stdout().match(/Ready on (http:\/\/127\.0\.0\.1:\d+)/) ?? [];
      const { code, output } = await conform(url as string);
      const summary = output.match(/^# \d+ passed, \d+ failed.*$/m)?.[0] ?? '';
      if (code !== 0) throw new Error(`conform exited ${code}:\n${output}`);
      return `${url}, ${summary.slice(2)}`;
    } finally {
      await stop(dev);
    }
  });
} finally {
  clearTimeout(overall);
  for (const child of running) await stop(child).catch(() => child.kill());
  rmSync(dir, { recursive: true, force: true });
}
console.log(`wrangler (${which}): ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
