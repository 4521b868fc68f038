/**
 * `npm run size`: what a host really pulls in, bundled (valibot included), minified and gzipped
 * by esbuild and zlib, for each entry point of the built package (`dist/`, so `npm run build`
 * first; the npm script does). Two figures per entry: everything it exports, and a typical host's
 * imports after tree shaking. Says when the core (`plant-store`, everything) or the client
 * (`plant-store/client`) is over its budget, and with `--enforce` fails then.
 *
 * @module
 */

import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * The core's budget, minified and gzipped: 10 KB. A guard against a heavy dependency or a
 * runaway feature, not a target to golf the code down to.
 */
const CORE_BUDGET_BYTES = 10 * 1024;
/**
 * The client's guard, minified and gzipped: just above what its plain code weighs, so a
 * dependency or a second copy of its logic shows at once. Its messages, which name each fix, are
 * about a fifth of it.
 */
const CLIENT_BUDGET_BYTES = 3_000;

/** One measured import: what a host writes, and for which platform esbuild bundles it. */
interface Entry {
  readonly label: string;
  readonly source: string;
  readonly platform: 'neutral' | 'node';
}

const entries: Entry[] = [
  {
    label: "plant-store (all of '.')",
    source: "export * from 'plant-store';",
    platform: 'neutral',
  },
  {
    label: 'plant-store (createPlantStore + createStaticTokenVerifier)',
    source: "export { createPlantStore, createStaticTokenVerifier } from 'plant-store';",
    platform: 'neutral',
  },
  {
    label: "plant-store/cors (all of './cors')",
    source: "export * from 'plant-store/cors';",
    platform: 'neutral',
  },
  {
    label: "plant-store/testing (all of './testing')",
    source: "export * from 'plant-store/testing';",
    platform: 'neutral',
  },
  {
    label: "plant-store/client (all of './client')",
    source: "export * from 'plant-store/client';",
    platform: 'neutral',
  },
  {
    label: "plant-store/node (all of './node')",
    source: "export * from 'plant-store/node';",
    platform: 'node',
  },
  {
    label: 'plant-store + plant-store/node (a Node host)',
    source: "export * from 'plant-store'; export * from 'plant-store/node';",
    platform: 'node',
  },
];

/** Bundles one entry and measures it. */
async function measure(entry: Entry) {
  const result = await build({
    stdin: { contents: entry.source, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: entry.platform,
    mainFields: ['module', 'main'],
    target: 'es2022',
    // Not tsconfig.json: its paths map plant-store to lib/ for the typecheck, and a host gets dist/.
    tsconfigRaw: {},
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const inputs = Object.entries(result.metafile.outputs)[0]?.[1].inputs ?? {};
  const biggest = Object.entries(inputs)
    .sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput)
    .slice(0, 4)
    .map(([file, { bytesInOutput }]) => `${file.replace(/^node_modules\//, '')} ${bytesInOutput}`);
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, biggest };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const budgets = new Map([
  [entries[0], { name: 'the core', bytes: CORE_BUDGET_BYTES }],
  [
    entries.find((entry) => entry.source.includes("'plant-store/client'")),
    {
      name: 'the client',
      bytes: CLIENT_BUDGET_BYTES,
    },
  ],
]);
const verdicts: string[] = [];
console.log('entry | min | min+gz | largest inputs (minified bytes)');
for (const entry of entries) {
  const { minified, gzipped, biggest } = await measure(entry);
  console.log(`${entry.label} | ${kb(minified)} | ${kb(gzipped)} | ${biggest.join(', ')}`);
  const budget = budgets.get(entry);
  if (budget === undefined) continue;
  const said = `${kb(budget.bytes)} min+gz (${gzipped} of ${budget.bytes} bytes)`;
  if (gzipped <= budget.bytes) {
    verdicts.push(`${budget.name} is within its budget of ${said}`);
  } else {
    verdicts.push(`${budget.name} is OVER its budget of ${said}`);
    if (process.argv.includes('--enforce')) process.exitCode = 1;
  }
}
for (const verdict of verdicts) {
  if (verdict.includes(' OVER ')) console.error(verdict);
  else console.log(verdict);
}
