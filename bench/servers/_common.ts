/**
 * What every benchmark server shares: the one bearer token, the body limit, the port from the
 * environment, the ready line the harness waits for, and (for the hand-written servers) the
 * plant workload's validation and in-memory store, so that each server does the same work.
 *
 * @module
 */

/** The one bearer token every server accepts. */
export const TOKEN = 'bench-token-3q2-7wDJ5f1';
/** The body limit of every server: 100 KiB, as plant-store's default. */
export const MAX_BODY_BYTES = 102_400;
/** The line the harness waits for before it talks to a server. */
export const READY_PREFIX = 'bench-server ready on ';

/** The port to listen on: `PORT` from the environment (the harness sets `0`, any free one). */
export function benchPort(): number {
  return Number(process.env.PORT ?? '0');
}

/** Prints the ready line with the real port. */
export function announce(port: number): void {
  process.stdout.write(`${READY_PREFIX}http://127.0.0.1:${port}\n`);
}

/** A stored plant. */
export interface BenchPlant {
  readonly name: string;
  readonly tag?: string;
}

const EXPECTED_AUTHORIZATION = `Bearer ${TOKEN}`;

/** True when the `Authorization` header carries the token (scheme in any case). */
export function isAuthorized(authorization: string | null | undefined): boolean {
  if (typeof authorization !== 'string') return false;
  if (authorization === EXPECTED_AUTHORIZATION) return true; // the common spelling, no regex
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization);
  return match?.[1] === TOKEN;
}

/** True when the `Content-Type` is `application/json` (any case, parameters allowed). */
export function isJson(contentType: string | null | undefined): boolean {
  if (typeof contentType !== 'string') return false;
  const semicolon = contentType.indexOf(';');
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim();
  return type.toLowerCase() === 'application/json';
}

/** The parsed NewPlant, or the message of the first rule it breaks. */
export function readPlant(value: unknown): { id: number; plant: BenchPlant } | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'body must be an object';
  }
  const { id, name, tag } = value as Record<string, unknown>;
  if (!Number.isInteger(id)) return 'id must be an integer';
  if (typeof name !== 'string') return 'name must be a string';
  if (tag !== undefined && typeof tag !== 'string') return 'tag must be a string';
  return { id: id as number, plant: tag === undefined ? { name } : { name, tag } };
}

/** Insert-if-absent: `true` when stored or an identical replay, `false` on a conflict. */
export function storePlant<Id>(plants: Map<Id, BenchPlant>, id: Id, plant: BenchPlant): boolean {
  const existing = plants.get(id);
  if (existing === undefined) {
    plants.set(id, plant);
    return true;
  }
  return existing.name === plant.name && existing.tag === plant.tag;
}

/** The Error body every server sends. */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: status, message });
}
