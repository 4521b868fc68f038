/**
 * `npm run check:openapi` (CI, after `npm ci --prefix test/openapi-lint`): the OpenAPI document
 * as the standalone server serves it (#23), checked by the tools its users run.
 *
 * 1. Lints: `@redocly/cli` with its recommended rules and `@stoplight/spectral-cli` with
 *    `spectral:oas`. No error; each warning must be one the contract requires, listed below
 *    and in DEVELOPMENT.md.
 * 2. Generated clients, behind a proxy that strips the prefix: Debian's nginx
 *    (`location /store/ { proxy_pass http://store/; }`) in front of the server, and another app at
 *    its root. orval and @hey-api/openapi-ts (fetch clients) generate from the document's URL
 *    through the proxy, as a user would; each client's base URL is the document's server
 *    resolved against that URL, as OpenAPI says of a relative server (a client outside a browser
 *    has nothing else to resolve it against). Each then creates a plant in the store (`200`) and
 *    sees `409` on a changed replay, and the app at the proxy's root hears nothing.
 *
 * The tools live in this folder's own locked package, so the root install stays light. Output
 * goes to a temporary folder; the server is the standalone one (`lib/cli/main.ts`) on a free port.
 *
 * @module
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { READY, ROOT, startCli } from '../support/cli-helpers.ts';
import { noNginx, type Nginx, startNginx } from '../support/nginx.ts';
import { type Child, spawnChild } from '../support/node-helpers.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const bin = (name: string) => join(HERE, 'node_modules', '.bin', name);
const TOKEN = 'openapi-lint-token';

/**
 * The warnings the contract requires: it asks for 404 and 405 as reusable responses under
 * `components`, which no operation references (fetch answers them on any path and method).
 */
const EXPECTED_WARNINGS = [
  'redocly no-unused-components #/components/responses/NotFound',
  'redocly no-unused-components #/components/responses/MethodNotAllowed',
  'spectral oas3-unused-component components.responses.NotFound',
  'spectral oas3-unused-component components.responses.MethodNotAllowed',
];

const failures: string[] = [];
if (!existsSync(bin('redocly'))) {
  console.log('not ok - the tools are not installed: npm ci --prefix test/openapi-lint');
  process.exit(1);
}
const nginxMissing = noNginx();
if (nginxMissing !== false) {
  console.log(`not ok - ${nginxMissing}`);
  process.exit(1);
}
const log = (line: string) => console.log(line);

function run(command: string, args: string[], cwd = HERE) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env } });
  if (result.error) throw result.error;
  return result;
}

function lint(document: string): void {
  const warnings: string[] = [];
  const redocly = run(bin('redocly'), [
    'lint',
    '--extends',
    'recommended',
    '--format',
    'json',
    document,
  ]);
  const redoclyReport = JSON.parse(redocly.stdout) as {
    problems: Array<{
      ruleId: string;
      severity: string;
      message: string;
      location: Array<{ pointer: string }>;
    }>;
  };
  for (const problem of redoclyReport.problems) {
    const where = `redocly ${problem.ruleId} ${problem.location[0]?.pointer}`;
    if (problem.severity === 'error') failures.push(`${where}: ${problem.message}`);
    else warnings.push(where);
  }
  const spectral = run(bin('spectral'), [
    'lint',
    '--ruleset',
    join(HERE, '.spectral.yaml'),
    '--format',
    'json',
    '--quiet',
    document,
  ]);
  const spectralReport = JSON.parse(spectral.stdout || '[]') as Array<{
    code: string;
    severity: number;
    message: string;
    path: string[];
  }>;
  for (const problem of spectralReport) {
    const where = `spectral ${problem.code} ${problem.path.join('.')}`;
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    if (problem.severity === 0) failures.push(`${where}: ${problem.message}`);
    else warnings.push(where);
  }
  for (const warning of warnings) {
    if (!EXPECTED_WARNINGS.includes(warning)) failures.push(`an unexpected warning: ${warning}`);
  }
  for (const expected of EXPECTED_WARNINGS) {
    if (!warnings.includes(expected))
      failures.push(
        `the expected warning is gone (update the list and DEVELOPMENT.md): ${expected}`,
      );
  }
  log(
    `lint: redocly ${redoclyReport.problems.length} problem(s), spectral ${spectralReport.length}; warnings: ${warnings.join('; ') || 'none'}`,
  );
}

/** Clients generated from `documentUrl`, with `baseUrl` the document's server resolved there. */
async function generateClients(documentUrl: string, baseUrl: string, out: string): Promise<void> {
  writeFileSync(
    join(out, 'orval.config.cjs'),
    `module.exports = ${JSON.stringify({
      plants: {
        input: { target: documentUrl },
        output: {
          target: join(out, 'orval', 'client.ts'),
          client: 'fetch',
          baseUrl,
        },
      },
    })};\n`,
  );
  for (const [name, args] of [
    ['orval', ['--config', join(out, 'orval.config.cjs')]],
    [
      'openapi-ts',
      ['-i', documentUrl, '-o', join(out, 'hey'), '-c', '@hey-api/client-fetch', '-s'],
    ],
  ] as const) {
    const result = run(bin(name), [...args]);
    if (result.status !== 0) failures.push(`${name} failed: ${result.stderr || result.stdout}`);
  }
  // ES modules throughout, so the script and the SDK share one instance of the client module.
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  writeFileSync(
    join(out, 'use-clients.ts'),
    `import { createPlant as orvalCreate } from './orval/client.ts';
import { client } from './hey/client.gen.ts';
import { createPlant as heyCreate } from './hey/sdk.gen.ts';

const headers = { authorization: 'Bearer ${TOKEN}' };
const seen = [
  (await orvalCreate({ id: 1, name: 'Fern' }, { headers })).status,
  (await orvalCreate({ id: 1, name: 'Ivy' }, { headers })).status,
];
client.setConfig({ baseUrl: '${baseUrl}', auth: () => '${TOKEN}' });
const created = await heyCreate({ body: { id: 2, name: 'Moss', tag: 'bryophyte' } });
seen.push(created.response.status, JSON.stringify(created.data));
seen.push((await heyCreate({ body: { id: 2, name: 'Lichen' } })).response.status);
console.log(JSON.stringify(seen));
`,
  );
  // Not spawnSync: the app at the proxy's root runs in this process, and must hear what comes.
  const used = spawnChild(
    process.execPath,
    ['--import', 'tsx', join(out, 'use-clients.ts')],
    process.env,
    ROOT,
  );
  await used.exited;
  const expected = JSON.stringify([200, 409, 200, '{"name":"Moss","tag":"bryophyte"}', 409]);
  const seen = used.stdout().trim();
  if (seen !== expected) {
    failures.push(`the generated clients: expected ${expected}, got ${seen} ${used.stderr()}`);
  }
  log(`generated clients (orval, @hey-api/openapi-ts) against ${baseUrl}: ${seen}`);
}

const children: Child[] = [];
const out = mkdtempSync(join(tmpdir(), 'plant-store-openapi-'));
/** What reached the app at the proxy's root: method, path and `Authorization`. */
const rootHeard: string[] = [];
const rootApp = createServer((req, res) => {
  rootHeard.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
  res.writeHead(404).end();
});
let proxy: Nginx | undefined;
try {
  const server = startCli({ PORT: '0', PLANT_STORE_TOKENS: TOKEN }, children);
  const [, , port] = await server.line(READY, 'the readiness line');
  await new Promise<void>((resolve) => rootApp.listen(0, '127.0.0.1', resolve));
  proxy = await startNginx(`
    location /store/ { proxy_pass http://127.0.0.1:${port}/; }
    location / { proxy_pass http://127.0.0.1:${(rootApp.address() as AddressInfo).port}; }`);
  const documentUrl = `${proxy.url}/store/openapi.json`;
  const served = await (await fetch(documentUrl)).text();
  const servers = (JSON.parse(served) as { servers: Array<{ url: string }> }).servers;
  if (servers[0]?.url !== '.') failures.push(`the served server is ${servers[0]?.url}, not .`);
  const document = join(out, 'openapi.json');
  writeFileSync(document, served);
  lint(document);
  const baseUrl = new URL(servers[0]?.url ?? '', documentUrl).href.replace(/\/$/, '');
  await generateClients(documentUrl, baseUrl, out);
  if (rootHeard.length > 0)
    failures.push(`the app at the proxy's root heard ${rootHeard.join('; ')}`);
} finally {
  for (const child of children) child.kill();
  await proxy?.stop();
  rootApp.close();
  rmSync(out, { recursive: true, force: true });
}
for (const failure of failures) console.log(`not ok - ${failure}`);
console.log(`openapi: ${failures.length === 0 ? 'ok' : `${failures.length} failure(s)`}`);
process.exitCode = failures.length === 0 ? 0 : 1;
