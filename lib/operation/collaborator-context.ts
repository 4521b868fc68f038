/**
 * The context a create hands its verifier and repository: the principal and a lazily made signal.
 *
 * @module
 */

/**
 * What the verifier and the repository receive. `signal` is a getter on the prototype, so the
 * signal is made only if a collaborator reads it, at the cost of one small object per call.
 */
export class CollaboratorContext {
  readonly principal: unknown;
  readonly #create: { readonly signal: AbortSignal };

  constructor(create: { readonly signal: AbortSignal }, principal?: unknown) {
    this.#create = create;
    this.principal = principal;
  }

  get signal(): AbortSignal {
    return this.#create.signal;
  }
}
