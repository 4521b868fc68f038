import type { RequestHead } from '../types.ts';
import type { PlainRequest } from './plain-request.ts';

/**
 * What the verifier and the repository receive: one per create, the principal set once the
 * verifier named one. The signal and the head are made when read.
 */
export class CollaboratorContext {
  principal: unknown;
  readonly #create: { readonly signal: AbortSignal };
  readonly #input: PlainRequest;

  constructor(create: { readonly signal: AbortSignal }, input: PlainRequest) {
    this.#create = create;
    this.#input = input;
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
