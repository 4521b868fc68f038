/**
 * Reads a callgrind dump as instructions per function, for `server-instructions.ts
 * --functions`. Callgrind names node's C++ and V8's builtins itself; JIT-compiled JavaScript it
 * knows only by address, so those addresses are named from the map node writes with
 * `--perf-basic-prof` (`/tmp/perf-<pid>.map`: start, size and name of each compiled function).
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** One compiled function of a perf map. */
interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** A perf map's code ranges, sorted by start. */
function readPerfMap(file: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (start === undefined || size === undefined || name.length === 0) continue;
    const from = Number.parseInt(start, 16);
    ranges.push({ start: from, end: from + Number.parseInt(size, 16), name: name.join(' ') });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The name of the code at `address`: the latest range that starts at or before it and holds it. */
function nameAt(ranges: readonly CodeRange[], address: number): string {
  let low = 0;
  let high = ranges.length - 1;
  let last = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((ranges[middle] as CodeRange).start <= address) {
      last = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  // Code space is reused, so an earlier range may be the one that still holds the address.
  for (let i = last; i >= 0 && i > last - 64; i--) {
    const range = ranges[i] as CodeRange;
    if (address < range.end) return range.name;
  }
  return 'JIT code not in the map';
}

/**
 * The self cost (instructions spent in the function itself, not in what it calls) of every
 * function in a callgrind dump, JIT code named from `perfMapFile`, largest first.
 */
export function selfCostByFunction(dumpFile: string, perfMapFile: string): [string, number][] {
  const ranges = readPerfMap(perfMapFile);
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let current = '';
  let skipCallCost = false;
  for (const line of readFileSync(dumpFile, 'utf8').split('\n')) {
    // The line after `calls=` is the inclusive cost of that call, not the caller's own.
    if (skipCallCost) {
      skipCallCost = false;
      continue;
    }
    // Names are compressed: `fn=(12) name` the first time, `fn=(12)` after.
    const named = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named !== null) {
      const [, id = '', name] = named;
      if (name !== undefined) names.set(id, name);
      if (line.startsWith('fn=')) current = names.get(id) ?? id;
      continue;
    }
    if (line.startsWith('calls=')) {
      skipCallCost = true;
      continue;
    }
    const cost = /^[+-]?\d+ (\d+)$/.exec(line);
    if (cost !== null) costs.set(current, (costs.get(current) ?? 0) + Number(cost[1]));
  }
  const byName = new Map<string, number>();
  for (const [fn, cost] of costs) {
    // A recursion level is `name'2`; an unnamed function is its address.
    const bare = fn.replace(/'\d+$/, '');
    const address = /^0x([0-9a-f]+)$/.exec(bare)?.[1];
    const name =
      address === undefined ? bare : `JS ${nameAt(ranges, Number.parseInt(address, 16))}`;
    byName.set(name, (byName.get(name) ?? 0) + cost);
  }
  return [...byName].sort((a, b) => b[1] - a[1]);
}
