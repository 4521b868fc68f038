// Steps 6 and 7 of the contract: strict UTF-8, then JSON, then a NewPlant with its id exact.

import * as v from 'valibot';
import type { NewPlant } from '../types.ts';
import { exactIdFromText } from './exact-id.ts';
import { isPlantId, NewPlantSchema } from './plant-schema.ts';

/** Why a body is not a NewPlant; without a `message`, the code's default is the client's. */
export interface PlantBodyProblem {
  readonly code: 'ERR_INVALID_UTF8' | 'ERR_INVALID_JSON' | 'ERR_INVALID_PLANT';
  readonly message?: string;
}

// fatal: invalid UTF-8 is an error, never a silent U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The whole body, not empty, as a NewPlant of its declared fields only, or why it is none. */
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
  const escaped = text.includes('\\');
  // Own properties only: an inherited name (a polluted prototype) is no field.
  const plant: Record<string, unknown> = {};
  if (Object.hasOwn(body, 'id')) {
    plant.id = typeof body.id === 'number' ? exactIdFromText(text, body.id, escaped) : body.id;
  }
  if (Object.hasOwn(body, 'name')) plant.name = body.name;
  if (Object.hasOwn(body, 'tag')) plant.tag = body.tag;
  // Without a backslash every string is the UTF-8 just checked, so well-formed, and holds no
  // U+0000 (JSON escapes control characters): the usual plant needs no more than its types
  // checked. valibot judges and words the rest. JSON has no undefined: an undefined tag is absent.
  if (
    !escaped &&
    isPlantId(plant.id) &&
    typeof plant.name === 'string' &&
    (plant.tag === undefined || typeof plant.tag === 'string')
  ) {
    return plant as unknown as NewPlant;
  }
  // Without abortEarly: the first issue, the one the client sees, is the same either way.
  const result = v.safeParse(NewPlantSchema, plant);
  if (result.success) return result.output;
  // NewPlant is flat and the schema gets an object, so every issue's one path item is the field.
  const [issue] = result.issues;
  return { code: 'ERR_INVALID_PLANT', message: `${issue.path?.[0].key} ${issue.message}` };
}
