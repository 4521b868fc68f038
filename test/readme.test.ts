/**
 * The documents' promises, checked. Every ```ts block of `README.md`, `DEVELOPMENT.md` and the
 * pages of `docs/` is type-checked as a module of its own, as a user would paste it, under
 * `strict`, `exactOptionalPropertyTypes` and `noUnusedParameters`, with `plant-store` and its
 * subpaths resolved to `lib/` through the root tsconfig's `paths`: one program for all of them,
 * each a virtual file. A block that follows `<!-- file: <path> -->` must also be that file, below its
 * module comment (a block of another language, such as the Workers guide's `wrangler.jsonc`: the
 * whole file); the graceful-shutdown example is one, and it is run here against PostgreSQL:
 * after a create, SIGTERM must end it within a second. The settings table of
 * `docs/configuration.md` must list exactly the standalone server's settings, the README's curl
 * must create a plant, no example may create an id that `plant-store conform` writes, and every
 * link between the documents must reach its file and heading.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { SETTINGS } from '../lib/cli/settings-table.ts';
import { createPlantStore, createStaticTokenVerifier } from '../lib/index.ts';
import { checkServer } from '../lib/testing.ts';
import { postPlant } from './support/cli-helpers.ts';
import { type Child, listen, spawnChild, withDeadline } from './support/node-helpers.ts';
import { type OwnSchema, ownSchema } from './support/pg-schema.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The documents whose ```ts blocks are checked: README, DEVELOPMENT.md and every page of docs/. */
const DOCUMENTS = [
  'README.md',
  'DEVELOPMENT.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/**
 * A ```ts block, or a block of another language that names its file: where it is, its code, and
 * the file it must equal, if the document names one.
 */
interface Snippet {
  readonly document: string;
  /** The 1-based line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  readonly file: string | undefined;
  /** Whether it is TypeScript, type-checked as a module of its own. */
  readonly typescript: boolean;
}

/** Every ```ts block of a Markdown text, and every block of another language below a file marker. */
function snippetsOf(document: string, text: string): Snippet[] {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const language = /^```([\w-]+)\s*$/.exec(lines[i] as string)?.[1];
    if (language === undefined) continue;
    // The marker goes right above the fence, or with one blank line between.
    const above = lines[i - 1] === '' ? lines[i - 2] : lines[i - 1];
    const file = /^<!-- file: (\S+) -->$/.exec(above ?? '')?.[1];
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    assert.ok(
      end < lines.length,
      `${document}:${start}: a \`\`\`${language} block is never closed`,
    );
    const typescript = language === 'ts' || language === 'typescript';
    if (typescript || file !== undefined) {
      const code = lines.slice(start, end).join('\n');
      snippets.push({ document, line: start + 1, code, file, typescript });
    }
    i = end;
  }
  return snippets;
}

/**
 * The globals the Deno, Bun and Workers snippets use, as far as they use them: the project
 * type-checks with Node's types, and Deno's, Bun's and Workers' own are not installed. Likewise
 * the test functions of the runners the conformance kit's snippets register with, and the
 * OpenTelemetry SDK classes of the observability page's set-up (the SDK lives in test/otel's own
 * package, whose tests run that set-up for real); plant-store/otel and
 * @opentelemetry/instrumentation are the installed ones.
 */
const RUNTIME_GLOBALS = `
type Handler = (request: Request) => Response | Promise<Response>;
interface DenoHttpServer {
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}
declare namespace Deno {
  function serve(handler: Handler): DenoHttpServer;
  function serve(options: { port?: number; hostname?: string }, handler: Handler): DenoHttpServer;
  function addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
}
declare const Bun: {
  serve(options: { fetch: Handler; port?: number; hostname?: string }): {
    readonly url: URL;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};
type RegisteredTest = (name: string, fn: () => Promise<void>) => void;
declare namespace Deno {
  const test: RegisteredTest;
}
declare module 'bun:test' {
  export const test: RegisteredTest;
}
declare module 'vitest' {
  export function describe(name: string, body: () => void): void;
  export const it: RegisteredTest;
}
declare module '@jest/globals' {
  export const it: RegisteredTest;
}
// As \`wrangler types\` declares it for the Workers guide's secrets (test/runtimes/wrangler.ts
// checks the guide's Worker against the real one), DATABASE_URL as its PostgreSQL recipe adds.
declare module 'cloudflare:workers' {
  export const env: { readonly API_TOKEN: string; readonly DATABASE_URL: string };
}
declare module '@opentelemetry/sdk-trace-node' {
  import type { Tracer, TracerProvider } from '@opentelemetry/api';
  export class BatchSpanProcessor {
    constructor(exporter: unknown);
  }
  export class NodeTracerProvider implements TracerProvider {
    constructor(config?: { spanProcessors?: BatchSpanProcessor[] });
    getTracer(name: string, version?: string): Tracer;
    register(): void;
  }
}
declare module '@opentelemetry/sdk-metrics' {
  import type { Meter, MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
  export class PeriodicExportingMetricReader {
    constructor(options: { exporter: unknown; exportIntervalMillis?: number });
  }
  export class MeterProvider implements ApiMeterProvider {
    constructor(options?: { readers?: PeriodicExportingMetricReader[] });
    getMeter(name: string, version?: string): Meter;
  }
}
declare module '@opentelemetry/exporter-trace-otlp-http' {
  export class OTLPTraceExporter {
    constructor(config?: { url?: string });
  }
}
declare module '@opentelemetry/exporter-metrics-otlp-http' {
  export class OTLPMetricExporter {
    constructor(config?: { url?: string });
  }
}
`;

/** The root tsconfig's options (its `paths` map plant-store to lib/), made stricter. */
function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  assert.equal(error, undefined, 'tsconfig.json reads');
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configPath);
  return {
    ...parsed.options,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUnusedParameters: true,
    noUnusedLocals: false,
    noEmit: true,
  };
}

/** Type-checks snippets, each as its own module; returns each one's errors as text. */
function typeCheck(snippets: readonly Snippet[]): string[] {
  const options = compilerOptions();
  // Virtual files beside the real ones, so that node_modules, package.json ("type": "module":
  // top-level await) and the paths resolve as for any file of the repository.
  const nameOf = (snippet: Snippet): string =>
    join(ROOT, 'test', `.snippet-${snippet.document.replaceAll('/', '-')}-${snippet.line}.ts`);
  const globals = join(ROOT, 'test', '.snippet-runtime-globals.d.ts');
  const virtual = new Map<string, string>([[globals, RUNTIME_GLOBALS]]);
  for (const snippet of snippets) virtual.set(nameOf(snippet), snippet.code);
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined
      ? getSourceFile.call(host, name, language, ...rest)
      : ts.createSourceFile(name, text, language);
  };
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram([...virtual.keys()], options, host);
  const format: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  };
  const global = ts.formatDiagnostics(
    [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()],
    format,
  );
  return snippets.map((snippet) => {
    const source = program.getSourceFile(nameOf(snippet));
    assert.ok(source, `${snippet.document}:${snippet.line} is in the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    // Each error at its line in the document, not in the virtual file.
    const errors = diagnostics.map((diagnostic) => {
      const at =
        diagnostic.start === undefined
          ? snippet.line
          : snippet.line + source.getLineAndCharacterOfPosition(diagnostic.start).line;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      return `${snippet.document}:${at}: TS${diagnostic.code}: ${message}`;
    });
    return [global, ...errors].filter((text) => text !== '').join('\n');
  });
}

/**
 * A file as the documents show it: a TypeScript file without its module comment and the blank
 * lines after it, any other file whole.
 */
function shownPart(file: string, text: string): string {
  return (file.endsWith('.ts') ? text.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '') : text).trimEnd();
}

const blocks = DOCUMENTS.flatMap((document) => {
  let text: string;
  try {
    text = readFileSync(join(ROOT, document), 'utf8');
  } catch {
    return [];
  }
  return snippetsOf(document, text);
});
const snippets = blocks.filter((block) => block.typescript);

describe('the TypeScript snippets of README.md, DEVELOPMENT.md and docs/', () => {
  let errors: string[] = [];
  before(() => {
    errors = typeCheck(snippets);
  });

  it('finds the snippets, the graceful shutdown among them', () => {
    assert.ok(snippets.length >= 10, `only ${snippets.length} ts blocks found`);
    assert.ok(snippets.some((snippet) => snippet.document.startsWith('docs/')));
    assert.ok(snippets.some((snippet) => snippet.file === 'examples/postgres-shutdown.ts'));
  });

  it("finds the Workers guide's configuration and the HAProxy configuration, as files they show", () => {
    for (const config of ['examples/cloudflare-worker/wrangler.jsonc', 'examples/haproxy.cfg']) {
      assert.ok(
        blocks.some((block) => block.file === config && !block.typescript),
        config,
      );
    }
  });

  snippets.forEach((snippet, index) => {
    it(`${snippet.document} line ${snippet.line} compiles`, () => {
      assert.equal(
        errors[index],
        '',
        `the snippet at ${snippet.document}:${snippet.line}:\n${errors[index]}`,
      );
    });
  });

  for (const { document, line, code, file } of blocks) {
    if (file === undefined) continue;
    it(`${document} line ${line} is ${file}, as it is`, () => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      assert.equal(code.trimEnd(), shownPart(file, text), `${document}:${line}`);
    });
  }

  it('reports a snippet that does not compile, at its line', () => {
    const [broken] = typeCheck([
      {
        document: 'README.md',
        line: 40,
        code: "import { createPlantStore } from 'plant-store';\n\ncreatePlantStore({ verifier: 's3cr3t' });",
        file: undefined,
        typescript: true,
      },
    ]);
    assert.match(broken ?? '', /^README\.md:42: TS2322: /m);
  });
});

describe("docs/configuration.md's settings table", () => {
  it('lists every setting the standalone server reads, and no other', () => {
    const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const section = page.split('\n## Settings\n')[1]?.split('\n## ')[0] ?? '';
    const listed = [...section.matchAll(/^\| `([A-Z_]+)` +\|/gm)].map((match) => match[1]);
    assert.deepEqual([...listed].sort(), Object.keys(SETTINGS).sort());
  });
});

/** The documents that link to each other: the README, the contributor's pages and docs/. */
const LINKED = ['README.md', 'DEVELOPMENT.md', 'ARCHITECTURE.md', 'bench/RESULTS.md', ...DOCUMENTS];

/** A Markdown text without its fenced code blocks, whose `#` lines are no headings. */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, `-` for spaces. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (heading as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

describe('the links between the documents', () => {
  for (const document of new Set(LINKED)) {
    it(`${document} links only to files and headings that exist`, () => {
      const text = readFileSync(join(ROOT, document), 'utf8');
      const broken: string[] = [];
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target as string)) continue; // https:, mailto:
        const [path = '', anchor] = (target as string).split('#');
        const file = path === '' ? join(ROOT, document) : join(ROOT, dirname(document), path);
        if (!existsSync(file)) {
          broken.push(`${target}: no such file`);
        } else if (anchor !== undefined && file.endsWith('.md')) {
          if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
            broken.push(`${target}: no such heading`);
          }
        }
      }
      assert.deepEqual(broken, [], document);
    });
  }
});

describe('the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('keeps the markers npm run bench:readme writes its table between', () => {
    const [from, to] = [
      readme.indexOf('<!-- bench:start -->'),
      readme.indexOf('<!-- bench:end -->'),
    ];
    assert.ok(
      from !== -1 && to > from,
      'README.md has <!-- bench:start --> ... <!-- bench:end -->',
    );
  });

  it('stays the way in, at most 400 lines: the reference goes to docs/', () => {
    const lines = readme.split('\n').length - 1;
    assert.ok(lines <= 400, `README.md has ${lines} lines`);
  });
});

/** Every id an example of the documents or of examples/ creates: `id: 1n`, `"id": 2`, `id: '3'`. */
function exampleIds(): string[] {
  const files = [
    ...DOCUMENTS,
    ...readdirSync(join(ROOT, 'examples'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `examples/${name}`),
  ];
  const ids = files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bid"?\s*:\s*'?(-?\d+)/g)].map(
      (match) => match[1] as string,
    ),
  );
  return [...new Set(ids)];
}

/** What `plant-store conform` may write, whatever its random range, as docs/conformance.md says. */
const CONFORM_WRITES: ReadonlyArray<readonly [bigint, bigint]> = [
  [2n ** 40n, 2n ** 52n + 99n],
  [2n ** 53n + 2n ** 41n, 2n ** 54n + 1n],
  [2n ** 62n, 2n ** 62n + 2n ** 52n],
  [-(2n ** 62n + 2n ** 52n), -(2n ** 62n)],
  [2n ** 63n - 2n, 2n ** 63n - 1n],
  [-(2n ** 63n), -(2n ** 63n) + 1n],
];

describe("the documents' examples", () => {
  it('create no id that plant-store conform may write, whatever its random range', () => {
    const taken = exampleIds().filter((id) =>
      CONFORM_WRITES.some(([low, high]) => BigInt(id) >= low && BigInt(id) <= high),
    );
    assert.deepEqual(taken, []);
  });

  it('leave a store that plant-store conform passes, when a user tries them first', async () => {
    // A user runs the README's curl and client, then conform: an id the kit writes would be
    // taken by then.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const bodies = [...readme.matchAll(/^\s+-d '(\{.*\})'$/gm)].map((match) => match[1] as string);
    assert.ok(bodies.length > 0, 'the README has a curl with a body');
    const ids = exampleIds();
    assert.ok(ids.length >= 4, `the examples create ids: ${ids.join(', ')}`);
    const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
    const server = await listen(store.fetch);
    try {
      for (const body of [...bodies, ...ids.map((id) => `{"id": ${id}, "name": "an example"}`)]) {
        const response = await fetch(`${server.url}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer s3cr3t', 'content-type': 'application/json' },
          body,
        });
        assert.ok(response.status === 200 || response.status === 409, body);
      }
      const report = await checkServer({ baseUrl: server.url, token: 's3cr3t' });
      assert.deepEqual(
        report.failed.map(({ error }) => error.message),
        [],
      );
    } finally {
      await server.close();
    }
  });
});

describe('the graceful-shutdown example on PostgreSQL', () => {
  const TOKEN = 'shutdown-token';
  let schema: OwnSchema | string;
  const children: Child[] = [];

  before(async () => {
    schema = await ownSchema('plant_store_readme');
  });
  after(async () => {
    for (const child of children) child.kill();
    if (typeof schema !== 'string') await schema.drop();
  });

  it('exits 0 within a second of SIGTERM after serving a create', async (t) => {
    if (typeof schema === 'string') {
      t.skip(schema);
      return;
    }
    // Without NODE_V8_COVERAGE: writing coverage at exit is the test's cost, not the example's.
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['NODE_V8_COVERAGE', 'NODE_TEST_CONTEXT']) delete env[name];
    const child = spawnChild(
      process.execPath,
      ['--import', 'tsx', 'examples/postgres-shutdown.ts'],
      { ...env, DATABASE_URL: schema.url, API_TOKEN: TOKEN, PORT: '0', HOST: '127.0.0.1' },
      ROOT,
    );
    children.push(child);
    const [, listening] = await child.line(/^listening on (http:\/\/\S+)$/, 'the listening line');
    // A keep-alive client: its idle connection must not hold the server open.
    const response = await postPlant(listening as string, TOKEN, { id: 1, name: 'Fern' });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { name: 'Fern' });

    const signalled = performance.now();
    child.process.kill('SIGTERM');
    const code = await withDeadline(child.exited, 'the exit after SIGTERM', 15_000);
    const tookMs = performance.now() - signalled;
    assert.equal(code, 0, `exit code; stderr: ${child.stderr()}`);
    assert.ok(tookMs < 1000, `exited ${Math.round(tookMs)} ms after SIGTERM, over 1 s`);
    const { rows } = await schema.admin.query(`SELECT name FROM "${schema.name}".plants`);
    assert.deepEqual(rows, [{ name: 'Fern' }]);
  });
});
