// A misspelled option would keep its default without a word, so every options object the package
// takes refuses an unknown name at construction.

/** Throws a `TypeError` naming a key of `options` not in `known`, and the nearest that is. */
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

/** The name in `known` nearest to `name`, case-insensitively. */
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

// Levenshtein: insertions, deletions, substitutions.
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
