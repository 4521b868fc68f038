/**
 * What `plant-store --help` and `--version` print: the usage and every setting of `SETTINGS`
 * with its default; the package's version.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { type Setting, SETTINGS } from './settings-table.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from '../node.ts';
import { REPEAT_GRACE_MS } from './signals.ts';

/** From the `package.json` two folders up, from `lib/cli` or `dist/cli`. */
export function packageVersion(): string {
  const manifest = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

const NAME_WIDTH = 36;
const WIDTH = 100;

/** Lines after the first are indented to the description column. */
function wrap(words: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of words.split(' ')) {
    if (line !== '' && NAME_WIDTH + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line].join(`\n${' '.repeat(NAME_WIDTH)}`);
}

function describe({ help, default: value, whenUnset }: Setting<unknown>): string {
  const shown = whenUnset ?? (value === undefined ? undefined : String(value));
  return shown === undefined ? help : `${help} (default: ${shown})`;
}

export function helpText(): string {
  const settings = Object.entries(SETTINGS).map(
    ([name, setting]) => `  ${name.padEnd(NAME_WIDTH - 2)}${wrap(describe(setting))}\n`,
  );
  return `plant-store ${packageVersion()}: the Plant Store API (POST /plants) over HTTP.

Usage: plant-store [--help | --version]   (in a clone: npm start)
       plant-store conform <base-url> --token <token> [options]
           checks any running server against the Plant Store contract (plant-store conform --help)
In production: node node_modules/plant-store/bin/plant-store.js (npx does not pass SIGTERM on)

Settings, from the environment:
${settings.join('')}
Every timeout is at least 1 ms: 0 would mean "never" and is refused.

SIGINT or SIGTERM stops gracefully: /readyz answers 503 at once, the server serves on for
PLANT_STORE_DRAIN_MS (each answer with Connection: close), then stops accepting and lets in-flight
requests finish (up to ${DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000} s). A second one, ${REPEAT_GRACE_MS / 1000} s or more later, stops at once.
`;
}
