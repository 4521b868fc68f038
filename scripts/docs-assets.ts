/**
 * Packs the reference page's renderer, Swagger UI, from the installed `swagger-ui-dist` into
 * `lib/docs/assets/swagger-ui.json` (git-ignored), which `plant-store/docs` imports and `npm run
 * build` copies into `dist/`: so the package ships the renderer's two built files, gzipped, and
 * an embedder installs no renderer package (swagger-ui-dist is 12 MB, with a telemetry
 * postinstall). A JSON module rather than files beside the code, because reading a file needs
 * `node:fs`, and `plant-store/docs` also runs on Deno, Bun and workers.
 *
 * Runs from `npm test` (through `npm run typecheck`) and `npm run build`, never at install
 * time (the published package has no install script); writes only on change.
 *
 * @module
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'lib', 'docs', 'assets', 'swagger-ui.json');

const require = createRequire(import.meta.url);
const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
const read = (name: string) => readFileSync(join(dist, name));
const { version, license } = JSON.parse(read('package.json').toString()) as {
  version: string;
  license: string;
};

/** Gzipped at the highest level, since it is done once and served many times. */
function packed(type: string, bytes: Buffer) {
  const gzip = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION });
  return { type, size: bytes.byteLength, gzip: gzip.toString('base64') };
}

// Apache-2.0 asks that the license and the NOTICE travel with the code: the bundle's own
// comment points at this file, beside it.
const licenses = Buffer.from(
  [
    `Swagger UI ${version} (swagger-ui-dist), ${license}`,
    read('LICENSE').toString(),
    read('NOTICE').toString(),
    'Third-party code bundled in swagger-ui-bundle.js:',
    read('swagger-ui-bundle.js.LICENSE.txt').toString(),
  ].join('\n\n'),
);

const assets = {
  renderer: 'swagger-ui-dist',
  version,
  license,
  files: {
    'swagger-ui-bundle.js': packed('text/javascript; charset=utf-8', read('swagger-ui-bundle.js')),
    'swagger-ui.css': packed('text/css; charset=utf-8', read('swagger-ui.css')),
    'swagger-ui-bundle.js.LICENSE.txt': packed('text/plain; charset=utf-8', licenses),
  },
};

const text = `${JSON.stringify(assets)}\n`;
if (!existsSync(OUT) || readFileSync(OUT, 'utf8') !== text) {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, text);
  console.log(`docs assets: Swagger UI ${version} packed into ${OUT} (${text.length} bytes)`);
}
