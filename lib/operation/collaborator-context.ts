import type { RequestHead } from '../types.ts';
import type { PlainRequest } from './plain-request.ts';

/** What the verifier and the repository receive; the signal and the head are made when read. */
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
