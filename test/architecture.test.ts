/**
 * The layout's rules, pinned so that they hold as the code grows (see ARCHITECTURE.md): the
 * public entries only re-export, each folder imports only what ARCHITECTURE.md's table lets it,
 * nothing imports in a cycle, only the Node adapter and the CLI load `node:*`, the core entry
 * reaches no package but valibot, and no file outgrows one job.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../lib/', import.meta.url));
/** The files the `exports` map names, and the two public vocabularies beside them. */
const ENTRIES = [
  'index.ts',
  'node.ts',
  'postgres.ts',
  'jwt.ts',
  'cors.ts',
  'docs.ts',
  'testing.ts',
  'fastify.ts',
  'express.ts',
  'otel.ts',
  'client.ts',
];
const TOP_LEVEL = [...ENTRIES, 'errors.ts', 'types.ts'];
/** Where `node:*` may be imported: the Node adapter and the standalone server. */
const NODE_ONLY = ['node.ts', 'node/', 'cli/'];
const MAX_LINES = 300;
const ARCHITECTURE = readFileSync(
  fileURLToPath(new URL('../ARCHITECTURE.md', import.meta.url)),
  'utf8',
);

/**
 * ARCHITECTURE.md's table of folders: each place (a folder such as `store/`, or a top-level
 * file) with what it may import, as the names the table writes in backticks.
 */
function importRules(): Map<string, string[]> {
  const rules = new Map<string, string[]>();
  const names = (cell: string) =>
    [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  for (const row of ARCHITECTURE.split('\n').filter((line) => line.startsWith('| `'))) {
    const [places = '', , allowed = ''] = row.slice(1, -1).split(' | ');
    for (const place of names(places)) rules.set(place, names(allowed));
  }
  return rules;
}

/** Every `.ts` file under `lib/`, as a path relative to it. */
function libFiles(dir = LIB): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? libFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [relative(LIB, join(dir, entry.name))]
        : [],
  );
}

const sources = new Map(libFiles().map((file) => [file, readFileSync(join(LIB, file), 'utf8')]));

/** What a file imports: static, type-only, side-effect, re-exports and dynamic `import()`. */
function importsOf(file: string): { local: string[]; packages: string[] } {
  const text = sources.get(file) ?? '';
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms),
    ...text.matchAll(/^import\s+'([^']+)'/gm),
    ...text.matchAll(/\bimport\('([^']+)'[,)]/g),
  ].map((match) => match[1] as string);
  const local: string[] = [];
  const packages: string[] = [];
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) local.push(join(dirname(file), specifier));
    else packages.push(specifier);
  }
  return { local, packages };
}

/** Every file `entry` reaches through its imports, itself included. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of importsOf(file).local) if (!next.endsWith('.json')) visit(next);
  };
  visit(entry);
  return seen;
}

describe('the layout of lib/', () => {
  it('keeps only the entries and the public types and errors at the top; the rest is in folders', () => {
    const top = [...sources.keys()].filter((file) => !file.includes('/')).sort();
    assert.deepEqual(top, [...TOP_LEVEL].sort());
  });

  it('lets each public entry only re-export', () => {
    for (const entry of ENTRIES) {
      const code = (sources.get(entry) ?? '')
        .replace(/\/\*\*[\s\S]*?\*\//g, '')
        .replace(/^export (type )?\{[^}]*\} from '[^']+';$/gm, '')
        .trim();
      assert.equal(code, '', `${entry} holds more than re-exports`);
    }
  });

  it('resolves every relative import to a file of lib/', () => {
    for (const file of sources.keys()) {
      for (const target of importsOf(file).local) {
        // A JSON module is data (the reference page's packed renderer, made by `npm run docs:assets`).
        const found = target.endsWith('.json')
          ? existsSync(join(LIB, target))
          : sources.has(target);
        assert.ok(found, `${file} imports ${target}, which is not there`);
      }
    }
  });

  it('keeps the reference page and the CORS policy out of the core entry', () => {
    const optional = [...reachable('index.ts')].filter(
      (file) => file.startsWith('docs') || file.startsWith('cors'),
    );
    assert.deepEqual(optional, []);
  });

  it("holds every import to what ARCHITECTURE.md's table lets its folder import", () => {
    const rules = importRules();
    for (const file of sources.keys()) {
      if (ENTRIES.includes(file)) continue;
      const place = file.includes('/') ? `${file.split('/')[0]}/` : file;
      const allowed = rules.get(place);
      assert.ok(allowed, `${place} has no row in ARCHITECTURE.md's table`);
      const { local, packages } = importsOf(file);
      for (const target of local) {
        if (place.endsWith('/') && target.startsWith(place)) continue;
        const ok = allowed.some((name) =>
          name.endsWith('/') ? target.startsWith(name) : target === name,
        );
        assert.ok(
          ok,
          `${file} imports ${target}, which ARCHITECTURE.md does not let ${place} import`,
        );
      }
      for (const name of packages) {
        const ok = allowed.some((rule) =>
          rule.endsWith('*') ? name.startsWith(rule.slice(0, -1)) : name === rule,
        );
        assert.ok(
          ok,
          `${file} imports the package ${name}, which ARCHITECTURE.md does not let ${place} import`,
        );
      }
    }
  });

  it('has no import cycles', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      assert.notEqual(state.get(file), 'visiting', `a cycle: ${[...path, file].join(' → ')}`);
      state.set(file, 'visiting');
      for (const next of importsOf(file).local) {
        if (!next.endsWith('.json')) visit(next, [...path, file]);
      }
      state.set(file, 'done');
    };
    for (const file of sources.keys()) visit(file, []);
  });

  it('imports node:* only in the Node adapter and the standalone server', () => {
    for (const file of sources.keys()) {
      if (NODE_ONLY.some((place) => file.startsWith(place))) continue;
      const builtins = importsOf(file).packages.filter((name) => name.startsWith('node:'));
      assert.deepEqual(builtins, [], `${file} imports ${builtins.join(', ')}`);
    }
  });

  it('lets the core entry reach no package but valibot, and no node:*', () => {
    for (const file of reachable('index.ts')) {
      const packages = importsOf(file).packages.filter((name) => name !== 'valibot');
      assert.deepEqual(packages, [], `plant-store reaches ${packages.join(', ')} through ${file}`);
    }
  });

  it('lets plant-store/client reach only its own folder and the public types, and no package', () => {
    // A caller's bundle must not carry the server: the types it shares are erased at build time.
    for (const file of reachable('client.ts')) {
      assert.ok(
        file === 'client.ts' || file.startsWith('client/') || file === 'types.ts',
        `plant-store/client reaches ${file}`,
      );
      assert.deepEqual(importsOf(file).packages, [], `${file} imports a package`);
    }
    assert.doesNotMatch(sources.get('types.ts') ?? '', /^import /m, 'types.ts imports something');
  });

  it(`keeps every file within ${MAX_LINES} lines, or says at its top why it is one job`, () => {
    for (const [file, text] of sources) {
      const lines = text.split('\n').length;
      if (lines <= MAX_LINES) continue;
      const top = /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
      assert.match(top, /one job/, `${file} has ${lines} lines and no reason at its top`);
    }
  });
});
