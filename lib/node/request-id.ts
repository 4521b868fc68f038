/**
 * `X-Request-Id`: the client's when usable, else made, and noted on the request so that `onError`,
 * a native `Request` and the response carry the same one.
 * @module
 */

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isUsableRequestId } from '../operation/usable-request-id.ts';

const REQUEST_ID: unique symbol = Symbol('plant-store.request-id');

interface IdentifiedRequest {
  [REQUEST_ID]?: string;
}

/** The client's `X-Request-Id`, from `rawHeaders`, if it sent one. */
function sentRequestId(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    // The first letter spares `Content-Type`, of the same length, the lower-casing.
    if (
      field.length === 12 &&
      (field.charCodeAt(0) | 32) === 120 /* x */ &&
      field.toLowerCase() === 'x-request-id'
    ) {
      return raw[i + 1];
    }
  }
  return undefined;
}

/** Gives a request its id: the client's `X-Request-Id` when it is usable, else a new one. */
export function assignRequestId(req: IncomingMessage): string {
  const sent = sentRequestId(req);
  const id = sent !== undefined && isUsableRequestId(sent) ? sent : newRequestId();
  (req as IdentifiedRequest)[REQUEST_ID] = id;
  return id;
}

/** A request's id: the one `assignRequestId` gave it, else the client's header, if any. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return (req as IdentifiedRequest)[REQUEST_ID] ?? sentRequestId(req);
}

/** The id `assignRequestId` gave a request, if it gave one. */
export function assignedRequestId(req: IncomingMessage): string | undefined {
  return (req as IdentifiedRequest)[REQUEST_ID];
}

/** 48 random bits, so that the ids of replicas and restarts do not collide in one log store. */
const PROCESS_PREFIX = `${randomBytes(6).toString('hex')}-`;
/** The last id made, as character codes: the prefix, then a counter in hexadecimal. */
const lastId = Array.from(`${PROCESS_PREFIX}0`, (char) => char.charCodeAt(0));

/** A new id (`3f9a0c71e2b4-2a`), as Fastify and chi make theirs: unique, not unguessable. */
export function newRequestId(): string {
  countUp(lastId, PROCESS_PREFIX.length);
  return String.fromCharCode(...lastId);
}

/** Adds one to the hexadecimal number that `codes` spells from `start` on, in place. */
function countUp(codes: number[], start: number): void {
  for (let i = codes.length - 1; i >= start; i--) {
    const code = codes[i] as number;
    if (code !== 102 /* f */) {
      codes[i] = code === 57 /* 9 */ ? 97 /* a */ : code + 1;
      return;
    }
    codes[i] = 48; /* 0 */
  }
  codes.splice(start, 0, 49 /* 1 */); // every digit was f: the number gains one
}
