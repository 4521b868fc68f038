// The create-a-plant operation: the contract's checks in its order, on plain values, whichever
// front the request came through. Steps are numbered as the contract numbers them.

import { errorReply, PlantApiError, type PlantApiErrorCode } from '../errors.ts';
import type { ErrorContext, NewPlant, TokenRejectionReason } from '../types.ts';
import { bearerToken } from './bearer-token.ts';
import {
  type AnswerListener,
  type Collaborators,
  codeOf,
  type StoredOutcome,
  unansweredAtDeadline,
} from './collaborator-answers.ts';
import { CollaboratorContext } from './collaborator-context.ts';
import { Deadline, type Deadlines } from './deadlines.ts';
import { plantReply } from './json-text.ts';
import { isIdentityCoding, isJsonUtf8 } from './media-type.ts';
import type {
  Answer,
  BodyReadFailure,
  BodySink,
  CreateOutcome,
  PlainRequest,
  Reply,
} from './plain-request.ts';
import { readJsonPlant } from './read-json-plant.ts';
import { usableRequestId } from './usable-request-id.ts';

/** What every create of one store shares; `report` and `tokenRejected` never throw. */
export interface OperationSettings {
  readonly collaborators: Collaborators;
  readonly maxBodyBytes: number;
  readonly deadlines: Deadlines;
  readonly report: (error: unknown, context: ErrorContext) => void;
  readonly tokenRejected:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
}

/**
 * Calls `answer` exactly once, before it returns when nothing had to be waited for.
 * `collaborators` replaces the store's own for one create: the diagnostics channels watch that way.
 */
export type Operation = (
  input: PlainRequest,
  answer: Answer,
  collaborators?: Collaborators,
) => void;

export function createOperation(store: OperationSettings): Operation {
  return function operation(input, answer, collaborators = store.collaborators) {
    // 1. Method.
    if (input.method !== 'POST') return answerError(answer, 'ERR_METHOD_NOT_ALLOWED');
    // 2. The Authorization header: missing, another scheme or malformed gets a bare challenge.
    const token = bearerToken(input.authorization);
    if (token === undefined) return answerError(answer, 'ERR_MISSING_TOKEN');
    new Create(store, input, answer, collaborators).verify(token);
  };
}

function answerError(answer: Answer, code: PlantApiErrorCode): void {
  answer(errorReply(code), code);
}

/**
 * One create past the auth header; its methods are the steps, in order. It ends when it answers,
 * or early (`503`) at the deadline or when the client goes, and then drops any late answer. The
 * client is checked only after a wait: a write for a client already gone is harmless, its retry a
 * replay.
 */
class Create extends Deadline implements AnswerListener, BodySink {
  /** Answered, or ended early. */
  #over = false;
  #waitingOn: 'verifier' | 'body' | 'repository' = 'verifier';
  /** A collaborator is being called: an answer now comes without a wait. */
  #calling = false;
  #limit = 0;
  #plant: NewPlant | undefined;
  readonly #context: CollaboratorContext;
  #controller: AbortController | undefined;
  readonly #store: OperationSettings;
  readonly #input: PlainRequest;
  readonly #answer: Answer;
  readonly #collaborators: Collaborators;

  constructor(
    store: OperationSettings,
    input: PlainRequest,
    answer: Answer,
    collaborators: Collaborators,
  ) {
    super();
    this.#store = store;
    this.#input = input;
    this.#answer = answer;
    this.#collaborators = collaborators;
    this.#context = new CollaboratorContext(this, input);
    store.deadlines.start(this);
  }

  /** The signal for collaborators; fires when the create ends early. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      // A create that ended early made its controller then (aborted), so this one is live.
      if (!this.#clientLeft()) this.#input.client.addEventListener('abort', this);
    }
    return this.#controller.signal;
  }

  /** The client left while a collaborator held the signal. */
  handleEvent(): void {
    this.#end(this.#input.client.reason);
  }

  /** 2. Authentication, the token: the verifier decides. */
  verify(token: string): void {
    this.#calling = true;
    this.#collaborators.verify(token, this.#context, this);
    this.#calling = false;
  }

  /** 2. the verdict (part of `AnswerListener`), then what the headers decide: 3, 4 and 5. */
  verified(valid: boolean, principal: unknown, reason: TokenRejectionReason | undefined): void {
    if (this.#dropsAnswer()) return;
    if (!valid) return this.#tokenRejected(reason);
    this.#context.principal = principal;
    const input = this.#input;
    const limit = (this.#limit = Math.min(this.#store.maxBodyBytes, input.bodyLimit ?? Infinity));
    // 3. Body present: the headers decide (an empty chunked body is found when it is read).
    if (!input.hasBody || input.declaredLength === 0) {
      return this.#finishWithError('ERR_BODY_REQUIRED');
    }
    // 4. Media type and content coding.
    if (!isJsonUtf8(input.contentType)) return this.#finishWithError('ERR_UNSUPPORTED_MEDIA_TYPE');
    if (!isIdentityCoding(input.contentEncoding)) {
      return this.#finishWithError('ERR_UNSUPPORTED_CONTENT_ENCODING');
    }
    // 5. Size, as declared: refused before a byte is read.
    if (input.declaredLength > limit) {
      return this.#finishWithError('ERR_BODY_TOO_LARGE', tooLarge(limit));
    }
    this.#waitingOn = 'body';
    try {
      input.readBody(limit, this);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The body is read (part of `BodySink`): 5. size as counted, 6. decoding, 7. shape. */
  take(bytes: Uint8Array | BodyReadFailure): void {
    if (this.#over) return;
    // 5. Size, as counted while the body streamed; 3. an empty chunked body.
    if (typeof bytes === 'string') {
      const message = bytes === 'ERR_BODY_TOO_LARGE' ? tooLarge(this.#limit) : undefined;
      return this.#finishWithError(bytes, message);
    }
    // 6. Decoding and 7. shape.
    const plant = readJsonPlant(bytes);
    if ('code' in plant) return this.#finishWithError(plant.code, plant.message);
    // 8. Store: the repository inserts the plant if its id is free.
    this.#plant = plant;
    this.#waitingOn = 'repository';
    this.#calling = true;
    this.#collaborators.store(plant, this.#context, this);
    this.#calling = false;
  }

  /** 8. The outcome (part of `AnswerListener`): created, an idempotent replay, or a conflict. */
  stored(outcome: StoredOutcome): void {
    if (this.#dropsAnswer()) return;
    if (outcome === 'conflict') this.#finish(errorReply('ERR_ID_CONFLICT'), outcome);
    else this.#finish(plantReply(this.#plant as NewPlant), outcome);
  }

  /** A fault (part of `AnswerListener` and `BodySink`): reported and answered `500`. */
  fail(error: unknown): void {
    if (this.#clientLeft()) return;
    const code = codeOf(error);
    // A full store is no fault: a repository says so to have the client told `507`.
    if (code === 'ERR_STORE_FULL') return this.#finishWithError(code, undefined, error);
    this.#report(error);
    // Not a bare 500: one names the host's fix, the other is a 503 whose retry is safe.
    const keep = code === 'ERR_BODY_ALREADY_READ' || code === 'ERR_STORE_UNAVAILABLE';
    this.#finishWithError(keep ? code : 'ERR_INTERNAL', undefined, error);
  }

  /**
   * The deadline passed (part of `Deadline`): `503`, and the host hears which collaborator was
   * slow. A slow body is the client's pace and a client that left is nobody's fault: not reported.
   */
  expire(): void {
    if (this.#clientLeft()) return;
    const waitingOn = this.#waitingOn;
    const reason = new PlantApiError('ERR_TIMEOUT');
    if (waitingOn === 'body') return this.#end(reason);
    const unanswered = unansweredAtDeadline(waitingOn);
    this.#report(unanswered);
    // The channels hear the error that names what was waited on; the signal keeps ERR_TIMEOUT.
    this.#end(reason, unanswered);
  }

  #tokenRejected(reason: TokenRejectionReason | undefined): void {
    this.#store.tokenRejected?.(reason, this.#errorContext());
    this.#finishWithError('ERR_INVALID_TOKEN');
  }

  #finishWithError(code: PlantApiErrorCode, message?: string, fault?: unknown): void {
    this.#finish(errorReply(code, message), code, fault);
  }

  #report(error: unknown): void {
    this.#store.report(error, this.#errorContext());
  }

  #errorContext(): ErrorContext {
    const { host } = this.#input;
    const requestId = usableRequestId(this.#input.requestId());
    return host === undefined ? { requestId } : { requestId, host };
  }

  /** Whether a collaborator's answer comes too late: the create is over, or its client left. */
  #dropsAnswer(): boolean {
    return this.#calling ? this.#over : this.#clientLeft();
  }

  /** Whether the create is over, ending it first if the client left unheard. */
  #clientLeft(): boolean {
    const client = this.#input.client;
    if (client.aborted) this.#end(client.reason);
    return this.#over;
  }

  /** Ends the create early: the signal fires with `reason`, the client gets `503`. */
  #end(reason: unknown, fault: unknown = reason): void {
    if (!this.#over) {
      // Made here if no collaborator asked yet, so that a late reader finds it aborted.
      this.#controller ??= new AbortController();
      this.#controller.abort(reason);
      this.#finishWithError('ERR_TIMEOUT', undefined, fault);
    }
  }

  #finish(reply: Reply, outcome: CreateOutcome, fault?: unknown): void {
    if (!this.#over) {
      this.#over = true;
      this.#store.deadlines.stop(this);
      // Off the client's signal, which a host may share among requests.
      if (this.#controller !== undefined) this.#input.client.removeEventListener('abort', this);
      this.#answer(reply, outcome, fault);
    }
  }
}

function tooLarge(limit: number): string {
  return `request body is larger than ${limit} bytes`;
}
