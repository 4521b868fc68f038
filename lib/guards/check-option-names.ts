/**
 * One check for every options object the package takes: a name it does not know is refused at
 * construction, with the nearest known name suggested, because a misspelled option would
 * otherwise keep its default without a word.
 *
 * @module
 */

/**
 * Throws a `TypeError` when `options` holds a key that is not one of `known`.
 *
 * @param caller The function that took the options, as the message names it.
 * @param options The options as the host gave them; `undefined` and `null` pass.
 * @param known Every option name `caller` takes.
 * @throws {TypeError} Naming the unknown key and the nearest known one.
 */
export function checkOptionNames(
  caller: string,
  options: object | null | undefined,
  known: readonly string[],
): void {
  if (options === undefined || options === null) return;
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const nearest = nearestName(name, known);
    const hint = nearest === undefined ? '' : `; did you mean "${nearest}"?`;
    throw new TypeError(`${caller}: unknown option "${name}"${hint} (known: ${known.join(', ')})`);
  }
}

/** The name of `known` nearest to `name` by edit distance; `undefined` when `known` is empty. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The edit distance of two names (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
