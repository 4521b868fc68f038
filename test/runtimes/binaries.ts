/**
 * Where the runtimes the cross-runtime run uses are, besides the Node that runs this file: Node
 * 22 and 24, Deno, Bun, workerd and wrangler, all from the runtimes' own package (`versions/`, installed by
 * `npm run install:runtimes`), never from the main install.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const VERSIONS = fileURLToPath(new URL('./versions/node_modules/', import.meta.url));

/** The binaries, by runtime: absolute paths, which may not exist until the package is installed. */
export const runtimeBinaries = {
  node22: `${VERSIONS}node22/bin/node`,
  node24: `${VERSIONS}node24/bin/node`,
  deno: `${VERSIONS}deno/deno`,
  bun: `${VERSIONS}bun/bin/bun.exe`,
  // The binary the workerd package's optional platform package ships (no install script needed).
  workerd: `${VERSIONS}@cloudflare/workerd-linux-64/bin/workerd`,
  // Run on Node 24: wrangler 4 needs Node 22.12 or later.
  wrangler: `${VERSIONS}wrangler/bin/wrangler.js`,
} as const;

/** The name of one of the runtimes besides the system Node. */
export type RuntimeName = keyof typeof runtimeBinaries;

/**
 * The path of a runtime's binary, or a clear error that says how to get it.
 *
 * @param name The runtime.
 * @returns The absolute path of its binary.
 * @throws {Error} When the runtimes' package is not installed.
 */
export function runtimeBinary(name: RuntimeName): string {
  const path = runtimeBinaries[name];
  if (!existsSync(path)) {
    throw new Error(`${name} is not installed at ${path}: run npm run install:runtimes`);
  }
  return path;
}
