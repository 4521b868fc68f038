import { JSON_HEADERS } from '../errors.ts';
import type { NewPlant } from '../types.ts';
import type { PlantReply } from './plain-request.ts';

/** Printable ASCII but `"` and `\`: a JSON string holds it as it is. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON text, the same `JSON.stringify` gives; the usual one needs no escape. */
export function jsonString(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** The Plant as `JSON.stringify` writes it: no `tag` when absent. */
export function plantReply(plant: NewPlant): PlantReply {
  const tag = plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`;
  return { status: 200, headers: JSON_HEADERS, body: `{"name":${jsonString(plant.name)}${tag}}` };
}
