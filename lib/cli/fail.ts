/**
 * How the standalone server stops before it serves: one line on stderr, never a stack or a
 * secret; exit 2 for bad settings, 1 for what cannot be reached or loaded.
 *
 * @module
 */

export function oneLine(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    // Node's AggregateError for a refused connection has an empty message; its code says it.
    const code = (error as { code?: unknown }).code;
    text = error.message || (typeof code === 'string' ? code : '') || error.name;
  } else {
    text = String(error);
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

export function fail(code: number, message: string): never {
  process.stderr.write(`plant-store: ${message}\n`);
  process.exit(code);
}
