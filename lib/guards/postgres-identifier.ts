// PostgreSQL silently truncates longer names, which could make two configured names one table.
const MAX_IDENTIFIER_BYTES = 63;

const encoder = new TextEncoder();

/**
 * Why `name` cannot name a PostgreSQL table or schema exactly as given (quoted), or `undefined`
 * when it can: the one rule for `plant-store/postgres` and the standalone server alike.
 */
export function identifierProblem(name: unknown): string | undefined {
  return typeof name === 'string' &&
    name !== '' &&
    !name.includes('\0') &&
    encoder.encode(name).length <= MAX_IDENTIFIER_BYTES
    ? undefined
    : `must be a non-empty identifier of at most ${MAX_IDENTIFIER_BYTES} bytes without U+0000`;
}
