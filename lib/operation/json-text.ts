/**
 * JSON text written out for the strings a reply or a log line carries, the same text
 * `JSON.stringify` gives.
 *
 * @module
 */

/** Text a JSON string holds as it is: printable ASCII, but for `"` and `\`. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as JSON: quoted as it is when nothing in it needs an escape (the usual plant name,
 * id, method or path), else by `JSON.stringify`, whose call is dearer than the check.
 */
export function jsonString(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}
