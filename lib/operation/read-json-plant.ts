/**
 * Steps 6 and 7 of the contract: the body's bytes as strict UTF-8, then JSON, then a NewPlant
 * with its id kept exact.
 *
 * @module
 */

import * as v from 'valibot';
import type { NewPlant } from '../types.ts';
import { exactIdFromText } from './exact-id.ts';
import { isPlantId, isPlantText, NewPlantSchema } from './plant-schema.ts';

/** Why a body is not a NewPlant: the error code and the message for the client. */
export interface PlantBodyProblem {
  readonly code: 'ERR_INVALID_UTF8' | 'ERR_INVALID_JSON' | 'ERR_INVALID_PLANT';
  /** The message for the client; the code's default when absent. */
  readonly message?: string;
}

// fatal: invalid UTF-8 is an error, never a silent U+FFFD. Stateless between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a request body as a NewPlant: strict UTF-8, then JSON, then the shape, with the `id`
 * taken exactly from its literal in the text (a double would round it).
 *
 * @param bytes The whole body, not empty.
 * @returns The plant (declared fields only), or the problem that stops it.
 */
export function readJsonPlant(bytes: Uint8Array): NewPlant | PlantBodyProblem {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { code: 'ERR_INVALID_UTF8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.slice(0, 200); // a long parser message is cut
    return { code: 'ERR_INVALID_JSON', message: `request body is not valid JSON: ${detail}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { code: 'ERR_INVALID_PLANT', message: 'request body must be a JSON object' };
  }
  const body = value as Record<string, unknown>;
  // The declared members only, with id read from its literal. Own-property checks keep
  // inherited names (from a polluted prototype, say) from counting as fields.
  const plant: Record<string, unknown> = {};
  if (Object.hasOwn(body, 'id')) {
    plant.id = typeof body.id === 'number' ? exactIdFromText(text, body.id) : body.id;
  }
  if (Object.hasOwn(body, 'name')) plant.name = body.name;
  if (Object.hasOwn(body, 'tag')) plant.tag = body.tag;
  // The usual valid plant passes the schema's own predicates and is taken as it is, without
  // valibot's walk; valibot judges and words the rest. JSON has no undefined, so an undefined
  // tag is an absent one.
  if (
    isPlantId(plant.id) &&
    isPlantText(plant.name) &&
    (plant.tag === undefined || isPlantText(plant.tag))
  ) {
    return plant as unknown as NewPlant;
  }
  // No config: valibot's default reports every issue, and the first one, the one the client
  // sees, is the same as with abortEarly.
  const result = v.safeParse(NewPlantSchema, plant);
  if (result.success) return result.output;
  // The message names the field and the rule it broke: NewPlant is flat, so an issue's one path
  // item is the field (the schema is handed an object, so every issue has one).
  const [issue] = result.issues;
  return { code: 'ERR_INVALID_PLANT', message: `${issue.path?.[0].key} ${issue.message}` };
}
