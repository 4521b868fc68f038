/**
 * Cloudflare Workers: the contract's case list and the client's checks inside `workerd` (from
 * npm, in `versions/`), run from Node. Each Worker of `workerd/` is bundled with esbuild against
 * the library under test (`lib` or `dist`), one as `export default { fetch }` and one as a Hono
 * app; each runs the cases directly, then over real HTTP through workerd's own socket. Then
 * the Workers guide's Worker (`examples/cloudflare-worker/src/index.ts`), on the guide's
 * compatibility date and on one without Node compatibility, creates plants with ids 2^63-1 and
 * 2^63-2 through the client from here. (`wrangler.ts` runs the guide's project through wrangler
 * itself.) `node --import tsx test/runtimes/workerd.ts
 * [lib|dist]`; exits 1 when anything fails.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import pg from 'pg';
import ts from 'typescript';
import { createPlantClient, PlantClientError } from '../../lib/client.ts';
import { ensurePlantTable } from '../../lib/postgres.ts';
import { runtimeBinary } from './binaries.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const which = process.argv[2] ?? 'lib';
if (which !== 'lib' && which !== 'dist') throw new TypeError(`'lib' or 'dist', not ${which}`);
const TOKEN = 'workerd-example-token';
/** The compatibility date the Workers run at: the Workers guide's, from its wrangler.jsonc. */
const COMPATIBILITY_DATE = (() => {
  const file = join(root, 'examples', 'cloudflare-worker', 'wrangler.jsonc');
  const { config } = ts.parseConfigFileTextToJson(file, readFileSync(file, 'utf8'));
  return (config as { compatibility_date: string }).compatibility_date;
})();
/** An older date, before Node compatibility became the default: no `process`, numeric timers. */
const BARE_COMPATIBILITY_DATE = '2024-09-23';
const RUN_TIMEOUT_MS = 300_000;

/** Resolves `plant-store` and its subpaths to the library under test, as an install would. */
const libraryUnderTest: Plugin = {
  name: 'plant-store-under-test',
  setup(context) {
    context.onResolve({ filter: /^plant-store(\/[a-z]+)?$/ }, ({ path }) => {
      const subpath = path === 'plant-store' ? 'index' : path.slice('plant-store/'.length);
      const file = which === 'dist' ? `dist/${subpath}.js` : `lib/${subpath}.ts`;
      return { path: join(root, file) };
    });
  },
};

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.join('|').replaceAll('/', '\\/')})$`);

/**
 * Node's built-in modules as Workers offer them, `node:`-prefixed: an import stays one, and a
 * CommonJS `require` (as in `pg`) becomes an import too, since a Worker has no `require`.
 */
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(context) {
    context.onResolve({ filter: BUILTIN }, ({ path, kind }) => {
      const name = path.replace(/^node:/, '');
      if (kind !== 'require-call') return { path: `node:${name}`, external: true };
      return { path: name, namespace: 'node-builtin' };
    });
    context.onLoad({ filter: /.*/, namespace: 'node-builtin' }, ({ path }) => ({
      contents: `import * as m from 'node:${path}'; export default m.default ?? m; export * from 'node:${path}';`,
      loader: 'js',
    }));
  },
};

/** One Worker bundled into a single ES module, as `wrangler deploy` would upload it. */
async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*', 'pg-native'],
    target: 'es2022',
    plugins: [libraryUnderTest, nodeBuiltins],
    tsconfigRaw: {},
    logLevel: 'error',
  });
}

/** One Worker of the config: its bundle, compatibility date and text bindings. */
interface WorkerSpec {
  readonly name: string;
  readonly file: string;
  readonly date?: string;
  readonly bindings?: Readonly<Record<string, string>>;
  /** Named entrypoints served on sockets of their own, as `<name>-<entrypoint>`. */
  readonly entrypoints?: readonly string[];
}

/** The workerd config: each Worker's default export, and its entrypoints, on sockets of their own. */
function config(workers: readonly WorkerSpec[]): string {
  const service = ({ name, file, date = COMPATIBILITY_DATE, bindings = {} }: WorkerSpec) => `(
    name = "${name}",
    worker = (
      modules = [(name = "worker.js", esModule = embed "${file}")],
      compatibilityDate = "${date}",
      globalOutbound = "loopback",
      bindings = [${Object.entries(bindings)
        .map(([key, value]) => `(name = "${key}", text = ${JSON.stringify(value)})`)
        .join(', ')}],
    ),
  )`;
  const socket = (name: string, target: string) =>
    `(name = "${name}", address = "127.0.0.1:0", http = (), service = ${target})`;
  const sockets = workers.flatMap(({ name, entrypoints = [] }) => [
    socket(name, `"${name}"`),
    ...entrypoints.map((entry) =>
      socket(`${name}-${entry}`, `(name = "${name}", entrypoint = "${entry}")`),
    ),
  ]);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${workers.map(service).join(',\n    ')},
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    ${sockets.join(',\n    ')},
  ],
);
`;
}

/** Starts workerd and resolves to the port of each socket, as its control pipe reports them. */
function startWorkerd(dir: string, sockets: number) {
  const child = spawn(runtimeBinary('workerd'), ['serve', 'config.capnp', '--control-fd=3'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
  });
  const ports = new Promise<Map<string, number>>((resolve, reject) => {
    const found = new Map<string, number>();
    const lines = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const event = JSON.parse(line) as { event?: string; socket?: string; port?: number };
      if (event.event === 'listen' && event.socket !== undefined && event.port !== undefined) {
        found.set(event.socket, event.port);
        if (found.size === sockets) resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`workerd exited (${code}) before listening`)));
    setTimeout(() => reject(new Error('workerd did not listen within 30 s')), 30_000).unref();
  });
  return { child, ports };
}

/** Asks a Worker's runner to run everything; prints its output and returns its failures. */
async function runWorker(name: string, runner: number, origin: number): Promise<number> {
  console.log(`\n-- workerd: the cases in the ${name} Worker`);
  const response = await fetch(
    `http://127.0.0.1:${runner}/?origin=${encodeURIComponent(`http://127.0.0.1:${origin}`)}`,
    { signal: AbortSignal.timeout(RUN_TIMEOUT_MS) },
  );
  const text = await response.text();
  if (response.status !== 200) {
    console.log(`not ok - the ${name} runner answered ${response.status}: ${text}`);
    return 1;
  }
  const { failed, output } = JSON.parse(text) as { failed: number; output: string };
  console.log(output);
  return failed;
}

/** The example Worker, called from here through the client. */
async function checkExample(port: number, date: string): Promise<number> {
  const label = `workerd example (export default { fetch: store.fetch }), ${date}`;
  try {
    const client = createPlantClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    const top = { id: 9223372036854775807n, name: 'Monstera' };
    const next = { id: '9223372036854775806', name: 'Fern' };
    for (const plant of [top, next, top, next]) {
      const answer = await client.createPlant(plant);
      if (answer.name !== plant.name) throw new Error(`${plant.id} answered ${answer.name}`);
    }
    // Both ids are stored apart and exactly: each answers its own plant, another name is a 409.
    const conflict = await client
      .createPlant({ id: top.id, name: 'Fern' })
      .catch((error: unknown) => error);
    if (!(conflict instanceof PlantClientError) || conflict.status !== 409) {
      throw new Error(`a changed plant under 2^63-1 was not refused: ${String(conflict)}`);
    }
    console.log(`${label}: 1 passed, 0 failed`);
    return 0;
  } catch (error) {
    console.log(`not ok - ${label}: ${String((error as Error)?.stack ?? error)}`);
    console.log(`${label}: 0 passed, 1 failed`);
    return 1;
  }
}

/**
 * The PostgreSQL Worker, when `DATABASE_URL` is set: plants with ids 2^63-1 and 2^63-2 created
 * through the client, then read back from the table.
 */
async function checkPostgres(port: number, schema: string, admin: pg.Pool): Promise<number> {
  const label = 'workerd PostgreSQL Worker (pg over cloudflare:sockets)';
  try {
    const client = createPlantClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
    await client.createPlant({ id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' });
    await client.createPlant({ id: '9223372036854775806', name: 'Fern' });
    const { rows } = await admin.query(
      `SELECT id::text AS id, name, tag FROM "${schema}".plants ORDER BY id`,
    );
    const expected = [
      { id: '9223372036854775806', name: 'Fern', tag: null },
      { id: '9223372036854775807', name: 'Monstera', tag: 'aroid' },
    ];
    if (JSON.stringify(rows) !== JSON.stringify(expected)) {
      throw new Error(`the table holds ${JSON.stringify(rows)}`);
    }
    console.log(`${label}: 1 passed, 0 failed`);
    return 0;
  } catch (error) {
    console.log(`not ok - ${label}: ${String((error as Error)?.stack ?? error)}`);
    console.log(`${label}: 0 passed, 1 failed`);
    return 1;
  }
}

const databaseUrl = process.env.DATABASE_URL || undefined;
const dir = mkdtempSync(join(tmpdir(), 'plant-store-workerd-'));
const admin =
  databaseUrl === undefined ? undefined : new pg.Pool({ connectionString: databaseUrl, max: 1 });
const schema = `plant_store_workerd_${process.pid}_${Date.now()}`;
const example = { file: 'example.js', bindings: { API_TOKEN: TOKEN } };
const workers: WorkerSpec[] = [
  { name: 'plain', file: 'plain.js', entrypoints: ['runner'] },
  { name: 'hono', file: 'hono.js', entrypoints: ['runner'] },
  { name: 'example', ...example },
  { name: 'example-bare', ...example, date: BARE_COMPATIBILITY_DATE },
];
const bundles = [
  bundle('test/runtimes/workerd/worker.ts', join(dir, 'plain.js')),
  bundle('test/runtimes/workerd/hono-worker.ts', join(dir, 'hono.js')),
  bundle('examples/cloudflare-worker/src/index.ts', join(dir, 'example.js')),
];
if (admin !== undefined && databaseUrl !== undefined) {
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await ensurePlantTable(admin, { schema });
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  workers.push({
    name: 'postgres',
    file: 'postgres.js',
    bindings: { API_TOKEN: TOKEN, DATABASE_URL: url.href },
  });
  bundles.push(bundle('test/runtimes/workerd/postgres-worker.ts', join(dir, 'postgres.js')));
}
await Promise.all(bundles);
writeFileSync(join(dir, 'config.capnp'), config(workers));
const sockets = workers.reduce((sum, worker) => sum + 1 + (worker.entrypoints?.length ?? 0), 0);
const { child, ports } = startWorkerd(dir, sockets);
let failed = 0;
try {
  const port = await ports;
  const at = (name: string) => port.get(name) as number;
  console.log(`workerd (${which}), compatibility date ${COMPATIBILITY_DATE}`);
  failed += await runWorker('export default { fetch }', at('plain-runner'), at('plain'));
  failed += await runWorker('Hono', at('hono-runner'), at('hono'));
  failed += await checkExample(at('example'), COMPATIBILITY_DATE);
  failed += await checkExample(
    at('example-bare'),
    `${BARE_COMPATIBILITY_DATE}, no Node compatibility`,
  );
  if (admin === undefined) {
    console.log('skip - workerd PostgreSQL Worker: DATABASE_URL is not set (.ci/run sets it)');
  } else {
    failed += await checkPostgres(at('postgres'), schema, admin);
  }
} catch (error) {
  console.log(`not ok - ${String((error as Error)?.stack ?? error)}`);
  failed += 1;
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
  if (admin !== undefined) {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}
console.log(`workerd (${which}): ${failed === 0 ? 'ok' : `${failed} failed`}`);
process.exitCode = failed === 0 ? 0 : 1;
