// A misspelled option would keep its default without a word, so every options object the package
// takes refuses an unknown name at construction.

/** Throws a `TypeError` naming a key of `options` not in `known`, and the names it knows. */
export function checkOptionNames(
  caller: string,
  options: object | null | undefined,
  known: readonly string[],
): void {
  if (options === undefined || options === null) return;
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    throw new TypeError(`${caller}: unknown option "${name}" (known: ${known.join(', ')})`);
  }
}
