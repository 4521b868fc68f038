// The store's one CORS hook, for the policy `createCors` (`plant-store/cors`) makes: a host that
// answers CORS with its own middleware ships no CORS code.

import type { OpenApiDocument } from '../openapi/openapi-document.ts';
import type { Operation } from '../operation/create-plant.ts';
import type { PlainRequest, Reply } from '../operation/plain-request.ts';
import type { Cors } from '../types.ts';

/** What a store needs of a CORS policy, on plain values. */
export interface CorsPolicy {
  /** The operation with CORS: an allowed preflight answered, every reply given its headers. */
  wrap(operation: Operation): (input: PlainRequest, answer: (reply: Reply) => void) => void;
  /** The CORS headers for a response to a request from `origin` (`null` when it has none). */
  headersFor(origin: string | null): Readonly<Record<string, string>>;
  /** The served OpenAPI document, with the headers the policy adds to responses. */
  describe(document: OpenApiDocument): object;
}

const policies = new WeakMap<Cors, CorsPolicy>();

/** Hands out the opaque `Cors` value for a policy (used by `createCors`). */
export function registerCors(policy: CorsPolicy): Cors {
  const cors: Cors = Object.freeze({ kind: 'plant-store/cors' });
  policies.set(cors, policy);
  return cors;
}

/** The policy behind a store's `cors` option; a `TypeError` if `createCors` did not make it. */
export function corsPolicyOf(cors: Cors): CorsPolicy {
  const policy = policies.get(cors);
  if (policy === undefined) {
    throw new TypeError("cors takes what createCors({ origins }) from 'plant-store/cors' returns");
  }
  return policy;
}
