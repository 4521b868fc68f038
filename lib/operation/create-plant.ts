/**
 * The create-a-plant operation: the behaviour contract's checks, in its order, on plain values
 * (`plain-request.ts`), whichever front the request came through. The steps below are numbered
 * as the contract (the README's "Behaviour" section) numbers them:
 *
 * 1. method, 2. authentication (the header, then the verifier), 3. body present,
 * 4. media type, 5. size (declared, then counted while the body is read), 6. decoding,
 * 7. shape (6 and 7 in `read-json-plant.ts`), 8. store.
 *
 * Past 300 lines, and one job: the steps read in the contract's order, each beside what it
 * tells the diagnostics channels (`diagnostics/create-trace.ts`) and the host's hooks.
 *
 * @module
 */

import { CreateTrace } from '../diagnostics/create-trace.ts';
import type { CreateOutcome } from '../diagnostics/messages.ts';
import { errorReply, JSON_HEADERS, PlantApiError, type PlantApiErrorCode } from '../errors.ts';
import type {
  ErrorContext,
  NewPlant,
  PlantRepository,
  TokenRejectionReason,
  TokenVerifier,
} from '../types.ts';
import { bearerToken } from './bearer-token.ts';
import {
  isOutcome,
  isPromiseLike,
  isVerdict,
  malformedAnswer,
  unansweredAtDeadline,
} from './collaborator-answers.ts';
import { CollaboratorContext } from './collaborator-context.ts';
import type { Deadline, Expiring, StartDeadline } from './deadlines.ts';
import { jsonString } from './json-text.ts';
import { isJsonUtf8 } from './media-type.ts';
import type {
  BodyReadFailure,
  BodySink,
  PlainRequest,
  PlantReply,
  Reply,
} from './plain-request.ts';
import { readJsonPlant } from './read-json-plant.ts';
import { usableRequestId } from './request-id.ts';

/** What every create of one store shares. */
export interface CreatePlantSettings {
  /** The store's auth. */
  readonly verifier: TokenVerifier;
  /** The store's storage. */
  readonly repository: PlantRepository;
  /** The largest body accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** The store's deadline for one create, in milliseconds (named in what a deadline reports). */
  readonly timeoutMs: number;
  /** Starts a create's deadline. */
  readonly startDeadline: StartDeadline;
  /** Hears about a fault, with the request it happened in; never throws. */
  readonly report: (error: unknown, context: ErrorContext) => void;
  /** Hears about a token the verifier refused, when the host asked to; never throws. */
  readonly tokenRejected:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
}

/**
 * A store's create-a-plant operation on plain values: calls `answer` exactly once with the
 * reply, before it returns when nothing had to be waited for.
 */
export type CreatePlant = (input: PlainRequest, answer: (reply: Reply) => void) => void;

/**
 * Makes a store's create-a-plant operation: it runs the contract's checks in order and calls
 * `answer` exactly once with the reply. Nothing that answers at once is waited for: with a
 * verifier and a repository that answer synchronously and a body already at hand, `answer` is
 * called before the operation returns, with no promise made on the way.
 *
 * @param settings The store's collaborators, limits and deadlines.
 * @returns The operation; `answer` must not throw.
 * @example
 * ```ts
 * const createPlant = createPlantOperation(settings);
 * createPlant(plainRequest, (reply) => send(reply));
 * ```
 */
export function createPlantOperation(settings: CreatePlantSettings): CreatePlant {
  const store: Store = {
    ...settings,
    tooLarge: `request body is larger than ${settings.maxBodyBytes} bytes`,
  };
  return function createPlant(input, answer) {
    // Asked once per create: with nobody listening, no message is built.
    const trace = CreateTrace.begin(input);
    if (trace === undefined) return runCreate(store, input, answer, undefined);
    runCreate(store, input, answer, trace);
    trace.end();
  };
}

function runCreate(
  store: Store,
  input: PlainRequest,
  answer: (reply: Reply) => void,
  trace: CreateTrace | undefined,
): void {
  // 1. Method.
  if (input.method !== 'POST') return refuse('ERR_METHOD_NOT_ALLOWED', answer, trace);
  // 2. Authentication, the header: missing, another scheme or malformed is a bare challenge.
  const token = bearerToken(input.authorization);
  if (token === undefined) return refuse('ERR_MISSING_TOKEN', answer, trace);
  new CreatePlantCall(store, input, answer, trace).verify(token);
}

function refuse(
  code: PlantApiErrorCode,
  answer: (reply: Reply) => void,
  trace: CreateTrace | undefined,
): void {
  if (trace === undefined) answer(errorReply(code));
  else trace.answered(errorReply(code), code, answer);
}

/** A store's settings with what its creates derive from them once. */
interface Store extends CreatePlantSettings {
  /** The `413` message, which names the limit. */
  readonly tooLarge: string;
}

/**
 * One call of `createPlant` past the auth header; its methods are the steps, in order. It ends
 * when it answers, or early (`503`) when the deadline passes or the client goes, and then drops
 * the late answer of whatever it waited for.
 *
 * The collaborators' `AbortSignal` is made only when one reads it, since most never do. The
 * client is looked at only after a wait, on a fault and when the signal is made: a write that
 * lands for a client already gone is harmless, its retry a replay.
 */
class CreatePlantCall implements BodySink, Expiring {
  /** Answered, or ended early. */
  #over = false;
  /** What the create waits on, for the deadline's report. */
  #waitingOn: 'verifier' | 'body' | 'repository' = 'verifier';
  #principal: unknown;
  #controller: AbortController | undefined;
  readonly #deadline: Deadline;
  readonly #store: Store;
  readonly #input: PlainRequest;
  readonly #answer: (reply: Reply) => void;
  readonly #trace: CreateTrace | undefined;

  constructor(
    store: Store,
    input: PlainRequest,
    answer: (reply: Reply) => void,
    trace: CreateTrace | undefined,
  ) {
    this.#store = store;
    this.#input = input;
    this.#answer = answer;
    this.#trace = trace;
    this.#deadline = store.startDeadline(this);
  }

  /** The signal for collaborators; fires when the create ends early. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      // A create that ended early made its controller then (aborted), so this one is live.
      if (!this.#clientLeft()) {
        const client = this.#input.client;
        // Never removed: it goes with the request, and once the create is over it does nothing.
        client.addEventListener('abort', () => {
          if (!this.#over) this.#end(client.reason);
        });
      }
    }
    return this.#controller.signal;
  }

  /** 2. Authentication, the token: the verifier decides. */
  verify(token: string): void {
    let verdict: unknown;
    this.#trace?.verifying();
    try {
      verdict = this.#store.verifier.verify(token, new CollaboratorContext(this));
    } catch (error) {
      return this.fail(error);
    }
    this.#trace?.returned();
    if (isPromiseLike(verdict)) {
      verdict.then(
        (settled) => {
          if (!this.#clientLeft()) this.checkHeaders(settled);
        },
        (error: unknown) => this.fail(error),
      );
    } else if (!this.#over) {
      this.checkHeaders(verdict);
    }
  }

  /** 2. the verdict, then what the headers decide: 3. body present, 4. media type, 5. size. */
  checkHeaders(verdict: unknown): void {
    // Fail closed: only an explicit { valid: true } lets a request through, and a verdict of
    // another shape is the host's bug, said in onError, not a client's bad token.
    if (!isVerdict(verdict)) return this.fail(malformedAnswer('ERR_MALFORMED_VERDICT', verdict));
    if (!verdict.valid) return this.#tokenRejected(verdict.reason);
    this.#trace?.verified(true, undefined);
    this.#principal = verdict.principal;
    const input = this.#input;
    const { maxBodyBytes, tooLarge } = this.#store;
    // 3. Body present: the headers decide (an empty chunked body is found when it is read).
    if (!input.hasBody || input.declaredLength === 0) {
      this.#refuse('ERR_BODY_REQUIRED');
    } else if (!isJsonUtf8(input.contentType)) {
      // 4. Media type.
      this.#refuse('ERR_UNSUPPORTED_MEDIA_TYPE');
    } else if (input.declaredLength > maxBodyBytes) {
      // 5. Size, as declared: refused before a byte is read.
      this.#refuse('ERR_BODY_TOO_LARGE', tooLarge);
    } else {
      this.#waitingOn = 'body';
      try {
        input.readBody(maxBodyBytes, this);
      } catch (error) {
        this.fail(error);
      }
    }
  }

  /** The body is read (part of `BodySink`): 5. size as counted, 6. decoding, 7. shape. */
  take(bytes: Uint8Array | BodyReadFailure): void {
    if (this.#over) return;
    // 5. Size, as counted while the body streamed; 3. an empty chunked body.
    if (typeof bytes === 'string') {
      const message = bytes === 'ERR_BODY_TOO_LARGE' ? this.#store.tooLarge : undefined;
      return this.#refuse(bytes, message);
    }
    // 6. Decoding and 7. shape.
    const plant = readJsonPlant(bytes);
    if ('code' in plant) this.#refuse(plant.code, plant.message);
    else this.store(plant);
  }

  /** 8. Store: the repository inserts the plant if its id is free. */
  store(plant: NewPlant): void {
    this.#waitingOn = 'repository';
    const context = new CollaboratorContext(this, this.#principal);
    let outcome: unknown;
    this.#trace?.storing();
    try {
      outcome = this.#store.repository.create(plant, context);
    } catch (error) {
      return this.fail(error);
    }
    this.#trace?.returned();
    if (isPromiseLike(outcome)) {
      outcome.then(
        (settled) => {
          if (!this.#clientLeft()) this.reply(plant, settled);
        },
        (error: unknown) => this.fail(error),
      );
    } else if (!this.#over) {
      this.reply(plant, outcome);
    }
  }

  /** 8. The outcome: created, an idempotent replay, or a conflict. */
  reply(plant: NewPlant, outcome: unknown): void {
    if (!isOutcome(outcome)) return this.fail(malformedAnswer('ERR_MALFORMED_OUTCOME', outcome));
    // Not created: a replay if the stored plant has the same content, else a conflict. A store
    // may hand back an absent tag as null (SQL) or undefined: no tag.
    let result: 'created' | 'replayed' | 'conflict' = 'created';
    if (!outcome.created) {
      const stored = outcome.existing;
      const same = stored.name === plant.name && (stored.tag ?? undefined) === plant.tag;
      result = same ? 'replayed' : 'conflict';
    }
    this.#trace?.stored(result);
    if (result === 'conflict') this.#finish(errorReply('ERR_ID_CONFLICT'), result);
    else this.#finish(plantReply(plant), result);
  }

  /** A fault (part of `BodySink`): reported and answered `500`, unless the create is over. */
  fail(error: unknown): void {
    if (this.#clientLeft()) return;
    this.#trace?.failed(error);
    // A full store is no fault: a repository says so to have the client told `507`.
    if (error instanceof PlantApiError && error.code === 'ERR_STORE_FULL') {
      return this.#refuse('ERR_STORE_FULL');
    }
    this.#report(error);
    const code = error instanceof PlantApiError ? error.code : undefined;
    // A store unavailable for now is a 503 with Retry-After: the client's retry is a safe replay.
    const keep = code === 'ERR_BODY_ALREADY_READ' || code === 'ERR_STORE_UNAVAILABLE';
    this.#refuse(keep ? code : 'ERR_INTERNAL');
  }

  /**
   * The deadline passed (part of `Expiring`): the client gets `503`, and the host hears which
   * collaborator kept it waiting. A slow body is the client's pace, not the host's fault, and a
   * client that left is nobody's: neither is reported.
   */
  expire(): void {
    if (this.#clientLeft()) return;
    const waitingOn = this.#waitingOn;
    const reason = new PlantApiError('ERR_TIMEOUT');
    if (waitingOn === 'body') return this.#end(reason, reason);
    const unanswered = unansweredAtDeadline(waitingOn, this.#store.timeoutMs);
    this.#report(unanswered);
    // The channels hear the error that names what was waited on; the signal keeps ERR_TIMEOUT.
    this.#end(reason, unanswered);
  }

  /** A refused token: `401`, and the host hears why when it asked to and the verifier said. */
  #tokenRejected(reason: unknown): void {
    const known = typeof reason === 'string' ? (reason as TokenRejectionReason) : undefined;
    this.#trace?.verified(false, known);
    this.#store.tokenRejected?.(known, { requestId: usableRequestId(this.#input.requestId()) });
    this.#refuse('ERR_INVALID_TOKEN');
  }

  /** Answers with an error, which the create then came to. */
  #refuse(code: PlantApiErrorCode, message?: string): void {
    this.#finish(errorReply(code, message), code);
  }

  #report(error: unknown): void {
    this.#store.report(error, { requestId: usableRequestId(this.#input.requestId()) });
  }

  /** Whether the create is over, ending it first if the client left unheard. */
  #clientLeft(): boolean {
    const client = this.#input.client;
    if (client.aborted) this.#end(client.reason);
    return this.#over;
  }

  /**
   * Ends the create early: the collaborators' signal fires with `reason`, the channels hear
   * `traced`, and the client gets `503`.
   */
  #end(reason: unknown, traced: unknown = reason): void {
    if (!this.#over) {
      // Made here if no collaborator asked yet, so that a late reader finds it aborted.
      this.#controller ??= new AbortController();
      this.#controller.abort(reason);
      this.#trace?.failed(traced);
      this.#refuse('ERR_TIMEOUT');
    }
  }

  #finish(reply: Reply, outcome: CreateOutcome): void {
    if (!this.#over) {
      this.#over = true;
      this.#deadline.stop();
      const trace = this.#trace;
      if (trace === undefined) this.#answer(reply);
      else trace.answered(reply, outcome, this.#answer);
    }
  }
}

/** The Plant as `JSON.stringify` writes it (no `tag` when absent), without its call. */
function plantReply(plant: NewPlant): PlantReply {
  const tag = plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`;
  return { status: 200, headers: JSON_HEADERS, body: `{"name":${jsonString(plant.name)}${tag}}` };
}
