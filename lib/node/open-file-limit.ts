import { readFileSync } from 'node:fs';

/** The soft limit on open files, from `/proc` on Linux; `undefined` when unlimited or unknown. */
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
