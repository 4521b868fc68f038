/**
 * JSON text written out for the strings a reply or a log line carries, and the reply of a
 * created plant, the same text `JSON.stringify` gives.
 *
 * @module
 */

import { JSON_HEADERS } from '../errors.ts';
import type { NewPlant } from '../types.ts';
import type { PlantReply } from './plain-request.ts';

/** Text a JSON string holds as it is: printable ASCII, but for `"` and `\`. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as JSON: quoted as it is when nothing in it needs an escape (the usual plant name,
 * id, method or path), else by `JSON.stringify`, whose call is dearer than the check.
 */
export function jsonString(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** The Plant as `JSON.stringify` writes it (no `tag` when absent), without its call. */
export function plantReply(plant: NewPlant): PlantReply {
  const tag = plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`;
  return { status: 200, headers: JSON_HEADERS, body: `{"name":${jsonString(plant.name)}${tag}}` };
}
