/**
 * The process's limit on open files, which every connection counts against. Node has no
 * `getrlimit`: on Linux the limit is read from `/proc/self/limits` (the soft limit, which node
 * raises to the hard one at start); elsewhere it is unknown.
 *
 * @module
 */

import { readFileSync } from 'node:fs';

/** The soft limit on open files, or `undefined` when unlimited or unknown. */
export function openFileLimit(): number | undefined {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'latin1');
  } catch {
    return undefined;
  }
  const soft = Number(/^Max open files\s+(\d+)\s/m.exec(limits)?.[1]);
  return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
}
