/**
 * The create-a-plant operation: the behaviour contract's eight checks, in its order, on plain
 * values (`plain-request.ts`), whichever front the request came through. Each step is named
 * once below, numbered as the contract (the README's "Behaviour" section) numbers it:
 *
 * 1. method, 2. authentication (the header, then the verifier), 3. body present,
 * 4. media type, 5. size (declared, then counted while the body is read), 6. decoding,
 * 7. shape (6 and 7 in `read-json-plant.ts`), 8. store.
 *
 * Past 300 lines, and one job: the steps read in the contract's order, each beside the
 * trace and hooks it tells (`diagnostics/create-trace.ts`).
 *
 * @module
 */

import { CreateTrace } from '../diagnostics/create-trace.ts';
import type { CreateOutcome } from '../diagnostics/messages.ts';
import { errorReply, JSON_HEADERS, PlantApiError, type PlantApiErrorCode } from '../errors.ts';
import type {
  CreatePlantOutcome,
  ErrorContext,
  NewPlant,
  PlantRepository,
  TokenRejectionReason,
  TokenVerdict,
  TokenVerifier,
} from '../types.ts';
import { bearerToken } from './bearer-token.ts';
import { isOutcome, isThenable, isVerdict, malformedAnswer } from './collaborator-answers.ts';
import { CollaboratorContext } from './collaborator-context.ts';
import type { Deadline, Deadlines } from './deadlines.ts';
import { jsonString } from './json-text.ts';
import { isJsonUtf8 } from './media-type.ts';
import type { BodyReadFailure, BodySink, PlainRequest, Reply } from './plain-request.ts';
import { readJsonPlant } from './read-json-plant.ts';

/** What every create of one store shares. */
export interface CreatePlantSettings {
  /** The store's auth. */
  readonly verifier: TokenVerifier;
  /** The store's storage. */
  readonly repository: PlantRepository;
  /** The largest body accepted, in bytes. */
  readonly maxBodyBytes: number;
  /** The store's deadlines, one timer for all its creates. */
  readonly deadlines: Deadlines;
  /** Hears about a fault, with the request it happened in; never throws. */
  readonly report: (error: unknown, context: ErrorContext) => void;
  /** Hears about a token the verifier refused, when the host asked to; never throws. */
  readonly tokenRejected:
    ((reason: TokenRejectionReason | undefined, context: ErrorContext) => void) | undefined;
}

/** A store's create-a-plant on plain values; calls `answer` exactly once. */
export type CreatePlant = (input: PlainRequest, answer: (reply: Reply) => void) => void;

/** A store's settings with what its creates derive from them once. */
interface Store extends CreatePlantSettings {
  /** The `413` message, which names the limit. */
  readonly tooLarge: string;
}

/**
 * Makes a store's create-a-plant operation: it runs the contract's checks in order and calls
 * `answer` exactly once with the reply. Nothing that answers at once is waited for: with a
 * verifier and a repository that answer synchronously and a body already at hand, `answer` is
 * called before the operation returns, with no promise made on the way.
 *
 * @param settings The store's collaborators and limits.
 * @returns The operation; `answer` must not throw.
 */
export function createPlantOperation(settings: CreatePlantSettings): CreatePlant {
  const store: Store = {
    ...settings,
    tooLarge: `request body is larger than ${settings.maxBodyBytes} bytes`,
  };
  return (input, answer) => {
    // Asked once per create: with nobody listening, the create builds no message at all.
    const trace = CreateTrace.begin(input);
    if (trace === undefined) {
      createPlant(store, input, answer, undefined);
    } else {
      createPlant(store, input, answer, trace);
      trace.end();
    }
  };
}

function createPlant(
  store: Store,
  input: PlainRequest,
  answer: (reply: Reply) => void,
  trace: CreateTrace | undefined,
): void {
  // 1. Method.
  if (input.method !== 'POST') {
    refuse('ERR_METHOD_NOT_ALLOWED', answer, trace);
    return;
  }
  // 2. Authentication, the header: missing, another scheme or malformed is a bare challenge.
  const token = bearerToken(input.authorization);
  if (token === undefined) {
    refuse('ERR_MISSING_TOKEN', answer, trace);
    return;
  }
  new PlantCreate(store, input, token, answer, trace);
}

function refuse(
  code: PlantApiErrorCode,
  answer: (reply: Reply) => void,
  trace: CreateTrace | undefined,
): void {
  if (trace === undefined) answer(errorReply(code));
  else trace.answered(errorReply(code), code, answer);
}

/** A step of a create: the reply to finish with, or `undefined` when it waits for more. */
type Step<T> = (this: PlantCreate, value: T) => Reply | undefined;

/**
 * One create past the auth header, from the verifier to the reply. It ends when it answers, or
 * early when the deadline passes or the client goes (then it answers `503`, and the late result
 * of whatever it waited for is dropped).
 *
 * Each step takes a collaborator's answer as it comes: a value goes straight to the next step, a
 * promise is waited for. What costs is made only when needed: the `AbortSignal` handed to the
 * collaborators only when one of them reads it (on Node 20 an `AbortController` with a listener
 * costs more than the plant logic, and most stores never look at it), and the deadline is an
 * entry in the store's shared `Deadlines`, not a timer of its own. The client is looked at only
 * where that changes what happens: after a wait on a collaborator, when something failed, and
 * when a collaborator asks for the signal. On Bun and Deno a request's signal costs more than the
 * plant logic (`npm run bench:runtimes`), and a write that lands for a client already gone is
 * harmless, as the contract says: its retry is a replay.
 */
class PlantCreate implements Deadline, BodySink {
  dueAt = 0;
  older: Deadline | undefined;
  newer: Deadline | undefined;
  /** Answered, or ended early. */
  #over = false;
  #principal: unknown;
  #plant: NewPlant | undefined;
  /** What the create came to, for its trace. */
  #outcome: CreateOutcome = 'created';
  #controller: AbortController | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #store: Store;
  readonly #input: PlainRequest;
  readonly #answer: (reply: Reply) => void;
  readonly #trace: CreateTrace | undefined;

  constructor(
    store: Store,
    input: PlainRequest,
    token: string,
    answer: (reply: Reply) => void,
    trace: CreateTrace | undefined,
  ) {
    this.#store = store;
    this.#input = input;
    this.#answer = answer;
    this.#trace = trace;
    store.deadlines.start(this);
    this.#step(this.#verify, token);
  }

  /** The signal for collaborators; fires when the create ends early. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      // A create that ended early made its controller then (aborted), so this one is live.
      if (!this.#clientLeft()) {
        const client = this.#input.client;
        const onLeave = () => this.#end(client.reason);
        // The client goes once, and #finish unsubscribes: no `once` option needed.
        client.addEventListener('abort', onLeave);
        this.#unsubscribe = () => client.removeEventListener('abort', onLeave);
      }
    }
    return this.#controller.signal;
  }

  // 2. Authentication, the token: the verifier decides.
  #verify(token: string): undefined {
    this.#trace?.verifying();
    const verdict = this.#store.verifier.verify(token, new CollaboratorContext(this));
    this.#trace?.returned();
    this.#then(this.#verified, verdict);
  }

  #verified(verdict: TokenVerdict): Reply | undefined {
    // Fail closed: only an explicit { valid: true } lets a request through, and a verdict of
    // another shape is the host's bug, said in onError, not a client's bad token.
    if (!isVerdict(verdict)) throw malformedAnswer('ERR_MALFORMED_VERDICT', verdict);
    if (!verdict.valid) {
      this.#tokenRejected(verdict.reason);
      return this.#refuse('ERR_INVALID_TOKEN');
    }
    this.#trace?.verified(true, undefined);
    this.#principal = verdict.principal;
    const input = this.#input;
    // 3. Body present: the headers decide (an empty chunked body is found when it is read).
    if (!input.hasBody || input.declaredLength === 0) return this.#refuse('ERR_BODY_REQUIRED');
    // 4. Media type.
    if (!isJsonUtf8(input.contentType)) return this.#refuse('ERR_UNSUPPORTED_MEDIA_TYPE');
    // 5. Size, as declared: refused before a byte is read.
    const { maxBodyBytes, tooLarge } = this.#store;
    if (input.declaredLength > maxBodyBytes) return this.#refuse('ERR_BODY_TOO_LARGE', tooLarge);
    input.readBody(maxBodyBytes, this);
    return undefined;
  }

  /** The body is read (part of `BodySink`). */
  take(bytes: Uint8Array | BodyReadFailure): void {
    this.#step(this.#bodyRead, bytes);
  }

  #bodyRead(bytes: Uint8Array | BodyReadFailure): Reply | undefined {
    // 5. Size, as counted while the body streamed; 3. an empty chunked body.
    if (bytes === 'ERR_BODY_TOO_LARGE') return this.#refuse(bytes, this.#store.tooLarge);
    if (typeof bytes === 'string') return this.#refuse(bytes);
    // 6. Decoding and 7. shape.
    const plant = readJsonPlant(bytes);
    if ('code' in plant) return this.#refuse(plant.code, plant.message);
    // 8. Store.
    this.#plant = plant;
    const context = new CollaboratorContext(this, this.#principal);
    this.#trace?.storing();
    const outcome = this.#store.repository.create(plant, context);
    this.#trace?.returned();
    this.#then(this.#stored, outcome);
    return undefined;
  }

  #stored(outcome: CreatePlantOutcome): Reply {
    if (!isOutcome(outcome)) throw malformedAnswer('ERR_MALFORMED_OUTCOME', outcome);
    const plant = this.#plant as NewPlant;
    // Not created: an idempotent replay if the stored plant has the same content, else a
    // conflict. A store may hand back an absent tag as null (SQL) or undefined: no tag.
    if (!outcome.created) {
      const stored = outcome.existing;
      if (stored.name !== plant.name || (stored.tag ?? undefined) !== plant.tag) {
        this.#trace?.stored('conflict');
        this.#outcome = 'conflict';
        return errorReply('ERR_ID_CONFLICT');
      }
      this.#outcome = 'replayed';
    }
    this.#trace?.stored(this.#outcome as 'created' | 'replayed');
    // The Plant as JSON.stringify writes it (no tag when absent), without its call.
    const tag = plant.tag === undefined ? '' : `,"tag":${jsonString(plant.tag)}`;
    return { status: 200, headers: JSON_HEADERS, body: `{"name":${jsonString(plant.name)}${tag}}` };
  }

  /**
   * A fault: a collaborator threw or rejected, or the body read failed (part of `BodySink`). It
   * is reported and answered `500`, unless the create is over or the client left.
   */
  fail(error: unknown): void {
    if (this.#clientLeft()) return;
    this.#trace?.failed(error);
    // A full store is no fault: a repository says so to have the client told `507`.
    if (error instanceof PlantApiError && error.code === 'ERR_STORE_FULL') {
      this.#finish(this.#refuse('ERR_STORE_FULL'));
      return;
    }
    this.#store.report(error, { requestId: this.#input.requestId() });
    this.#finish(this.#refuse('ERR_INTERNAL'));
  }

  /** The reply for an error, which the create then came to. */
  #refuse(code: PlantApiErrorCode, message?: string): Reply {
    this.#outcome = code;
    return errorReply(code, message);
  }

  /** A refused token: the host hears why, when it asked to and the verifier said. */
  #tokenRejected(reason: unknown): void {
    const known = typeof reason === 'string' ? (reason as TokenRejectionReason) : undefined;
    this.#trace?.verified(false, known);
    const hook = this.#store.tokenRejected;
    if (hook !== undefined) hook(known, { requestId: this.#input.requestId() });
  }

  /** The deadline passed: called by `Deadlines`. */
  expire(): void {
    this.#end(new PlantApiError('ERR_TIMEOUT'));
  }

  /**
   * Runs a step on a value at hand. Nothing runs once the create is over (no late work nobody
   * will see). A step that throws (a collaborator that throws, a malformed answer) is a fault,
   * not a crash; a step's reply finishes the create.
   */
  #step<T>(step: Step<T>, value: T): void {
    if (this.#over) return;
    try {
      const reply = step.call(this, value);
      if (reply !== undefined) this.#finish(reply);
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * Runs a step on a collaborator's answer: at once when it is a value (no wait, no extra turn),
   * once it settles when it is a promise; the late answer of a create that ended meanwhile is
   * dropped, whatever it is. Only answers are looked at for `then`: looking at every value a step
   * takes made that property load megamorphic.
   */
  #then<T>(step: Step<T>, value: T | PromiseLike<T>): void {
    if (isThenable(value)) {
      value.then(
        (settled) => {
          // The client may have left while the collaborator worked.
          if (!this.#clientLeft()) this.#step(step, settled);
        },
        (error) => this.fail(error),
      );
    } else {
      this.#step(step, value);
    }
  }

  /**
   * Whether the create is over, noticing first a client that left while nobody listened for it
   * (the create then ends early).
   */
  #clientLeft(): boolean {
    const client = this.#input.client;
    if (client.aborted) this.#end(client.reason);
    return this.#over;
  }

  /** Ends the create early: the collaborators' signal fires and the client gets `503`. */
  #end(reason: unknown): void {
    if (!this.#over) {
      // Made here if no collaborator asked yet, so that a late reader finds it aborted.
      this.#controller ??= new AbortController();
      this.#controller.abort(reason);
      this.#trace?.failed(reason);
      this.#finish(this.#refuse('ERR_TIMEOUT'));
    }
  }

  #finish(reply: Reply): void {
    if (!this.#over) {
      this.#over = true;
      this.#store.deadlines.stop(this);
      this.#unsubscribe?.();
      const trace = this.#trace;
      if (trace === undefined) this.#answer(reply);
      else trace.answered(reply, this.#outcome, this.#answer);
    }
  }
}
