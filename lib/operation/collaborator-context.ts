/**
 * The context a create hands its verifier and repository: the principal, a lazily made signal, and
 * the request as the host has it.
 *
 * @module
 */

import type { RequestHead } from '../types.ts';
import type { PlainRequest } from './plain-request.ts';

/**
 * What the verifier and the repository receive. Its getters are on the prototype, so the signal
 * and the request's head are made only if a collaborator reads them, at the cost of one small
 * object per call.
 */
export class CollaboratorContext {
  readonly principal: unknown;
  readonly #create: { readonly signal: AbortSignal };
  readonly #input: PlainRequest;

  constructor(create: { readonly signal: AbortSignal }, input: PlainRequest, principal?: unknown) {
    this.#create = create;
    this.#input = input;
    this.principal = principal;
  }

  get signal(): AbortSignal {
    return this.#create.signal;
  }

  get request(): RequestHead {
    return this.#input.head();
  }

  get host(): unknown {
    return this.#input.host;
  }
}
