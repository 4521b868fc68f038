// Where the operation calls the host's verifier and repository and reads their answers once.
// Whatever the host's code does (throws, rejects, a getter or `Proxy` that throws, a thenable that
// throws or settles twice), each call ends in exactly one call of its listener.

import { PlantApiError, type PlantApiErrorCode } from '../errors.ts';
import type {
  CreatePlantOutcome,
  NewPlant,
  Plant,
  PlantRepository,
  TokenRejectionReason,
  TokenVerdict,
  TokenVerifier,
} from '../types.ts';
import type { CollaboratorContext } from './collaborator-context.ts';
import type { CreateOutcome } from './plain-request.ts';

/** What a repository's answer came to for the plant it was given. */
export type StoredOutcome = Extract<CreateOutcome, 'created' | 'replayed' | 'conflict'>;

/**
 * Hears a collaborator's answer, read once: the create, or a trace standing between. Each call
 * ends in exactly one of these, before `verify` or `store` returns when the answer was no promise.
 */
export interface AnswerListener {
  verified(valid: boolean, principal: unknown, reason: TokenRejectionReason | undefined): void;
  stored(outcome: StoredOutcome): void;
  fail(error: unknown): void;
}

/** The collaborators as the operation calls them; the diagnostics channels wrap these calls. */
export interface Collaborators {
  verify(token: string, context: CollaboratorContext, listener: AnswerListener): void;
  store(plant: NewPlant, context: CollaboratorContext, listener: AnswerListener): void;
}

export function collaboratorsOf(
  verifier: TokenVerifier,
  repository: PlantRepository,
): Collaborators {
  return {
    verify(token, context, listener) {
      let answer: unknown;
      try {
        answer = verifier.verify(token, context);
      } catch (error) {
        return listener.fail(error);
      }
      whenAnswered(answer, giveVerdict, listener);
    },
    store(plant, context, listener) {
      let answer: unknown;
      try {
        answer = repository.create(plant, context);
      } catch (error) {
        return listener.fail(error);
      }
      whenAnswered(answer, giveOutcome, listener, plant);
    },
  };
}

type Read = (answer: unknown, listener: AnswerListener, plant?: NewPlant) => void;

/**
 * Reads an answer with `read`, or a thenable's first settlement; a later one, or a throw after
 * it, is ignored. Sync or async decided once: an answer at hand is read without a closure.
 */
function whenAnswered(
  answer: unknown,
  read: Read,
  listener: AnswerListener,
  plant?: NewPlant,
): void {
  let then: unknown;
  try {
    then = (answer as PromiseLike<unknown> | null | undefined)?.then;
  } catch (error) {
    return listener.fail(error);
  }
  if (typeof then !== 'function') return read(answer, listener, plant);
  let settled = false;
  const resolve = (value: unknown) => {
    if (!settled) {
      settled = true;
      read(value, listener, plant);
    }
  };
  const reject = (error: unknown) => {
    if (!settled) {
      settled = true;
      listener.fail(error);
    }
  };
  try {
    then.call(answer, resolve, reject);
  } catch (error) {
    reject(error);
  }
}

/** Reads a verdict, each field once; only an explicit `valid: true` accepts. */
function giveVerdict(answer: unknown, listener: AnswerListener): void {
  let valid: unknown;
  let more: unknown;
  try {
    const verdict = answer as Partial<TokenVerdict> | null | undefined;
    valid = verdict?.valid;
    if (typeof valid !== 'boolean') throw malformedAnswer('ERR_MALFORMED_VERDICT');
    more = valid
      ? (verdict as { principal?: unknown }).principal
      : (verdict as { reason?: unknown }).reason;
  } catch (error) {
    return listener.fail(error);
  }
  if (valid) listener.verified(true, more, undefined);
  else
    listener.verified(
      false,
      undefined,
      typeof more === 'string' ? (more as TokenRejectionReason) : undefined,
    );
}

function giveOutcome(answer: unknown, listener: AnswerListener, plant?: NewPlant): void {
  let outcome: StoredOutcome;
  try {
    outcome = readOutcome(answer, plant as NewPlant);
  } catch (error) {
    return listener.fail(error);
  }
  listener.stored(outcome);
}

function readOutcome(answer: unknown, plant: NewPlant): StoredOutcome {
  const outcome = answer as { created?: unknown; existing?: Partial<Plant> | null } | null;
  const created = outcome?.created;
  if (created === true) return 'created';
  const existing = created === false ? outcome?.existing : undefined;
  const name = existing?.name;
  // A store may hand back an absent tag as `null` or `undefined`.
  const tag = existing?.tag ?? undefined;
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
    throw malformedAnswer('ERR_MALFORMED_OUTCOME');
  }
  return name === plant.name && tag === plant.tag ? 'replayed' : 'conflict';
}

/** Whether a verifier's answer is a `TokenVerdict`. */
export function isVerdict(verdict: unknown): verdict is TokenVerdict {
  let valid = true;
  giveVerdict(verdict, {
    verified() {},
    stored() {},
    fail() {
      valid = false;
    },
  });
  return valid;
}

/** Whether a repository's answer is a `CreatePlantOutcome`. */
export function isOutcome(outcome: unknown): outcome is CreatePlantOutcome {
  try {
    readOutcome(outcome, { id: 0n, name: '' });
    return true;
  } catch {
    return false;
  }
}

const SHAPES = {
  ERR_MALFORMED_VERDICT: 'TokenVerifier.verify must answer { valid: true } or { valid: false }',
  ERR_MALFORMED_OUTCOME:
    'PlantRepository.create must answer { created: true } or { created: false, existing: { name, tag? } }',
} as const;

/** The error for an answer of the wrong shape: the shape, never the answer (it may be personal). */
export function malformedAnswer(code: keyof typeof SHAPES): PlantApiError {
  return new PlantApiError(code, SHAPES[code]);
}

/** The code of a `PlantApiError`; `undefined` for any other error, even one that throws. */
export function codeOf(error: unknown): PlantApiErrorCode | undefined {
  try {
    return error instanceof PlantApiError ? error.code : undefined;
  } catch {
    return undefined;
  }
}

/** The error a create's deadline reports: which collaborator had not answered. */
export function unansweredAtDeadline(waitingOn: 'verifier' | 'repository'): PlantApiError {
  const error = new PlantApiError(
    waitingOn === 'verifier' ? 'ERR_VERIFIER_TIMEOUT' : 'ERR_REPOSITORY_TIMEOUT',
  );
  // Formatted now: a stack left unread keeps the hung create alive as long as the error.
  void error.stack;
  return error;
}
