// Where the operation calls the host's verifier and repository and reads their answers once.
// Whatever the host's code does (throws, rejects, a getter or `Proxy` that throws, a thenable that
// throws or settles twice), each call ends in exactly one of `then` or `fail`.

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

/** A verifier's verdict, read once. */
export interface Verdict {
  readonly valid: boolean;
  readonly principal: unknown;
  readonly reason: TokenRejectionReason | undefined;
}

/** What a repository's answer came to for the plant it was given. */
export type Stored = 'created' | 'replayed' | 'conflict';

/** The collaborators as the operation calls them; the diagnostics channels wrap these calls. */
export interface Collaborators {
  verify(
    token: string,
    context: CollaboratorContext,
    then: (verdict: Verdict) => void,
    fail: (error: unknown) => void,
  ): void;
  store(
    plant: NewPlant,
    context: CollaboratorContext,
    then: (stored: Stored) => void,
    fail: (error: unknown) => void,
  ): void;
}

export function collaboratorsOf(
  verifier: TokenVerifier,
  repository: PlantRepository,
): Collaborators {
  return {
    verify(token, context, then, fail) {
      ask(() => verifier.verify(token, context), readVerdict, then, fail);
    },
    store(plant, context, then, fail) {
      ask(
        () => repository.create(plant, context),
        (answer) => readOutcome(answer, plant),
        then,
        fail,
      );
    },
  };
}

/** Calls a collaborator and reads its answer (or its thenable's first settlement) with `read`. */
function ask<T>(
  call: () => unknown,
  read: (answer: unknown) => T,
  then: (value: T) => void,
  fail: (error: unknown) => void,
): void {
  let answer: unknown;
  let thenOfAnswer: unknown;
  try {
    answer = call();
    thenOfAnswer = (answer as PromiseLike<unknown> | null | undefined)?.then;
  } catch (error) {
    return fail(error);
  }
  if (typeof thenOfAnswer !== 'function') return settle(answer, read, then, fail);
  let settled = false;
  const resolve = (value: unknown) => {
    if (!settled) {
      settled = true;
      settle(value, read, then, fail);
    }
  };
  const reject = (error: unknown) => {
    if (!settled) {
      settled = true;
      fail(error);
    }
  };
  try {
    thenOfAnswer.call(answer, resolve, reject);
  } catch (error) {
    reject(error);
  }
}

function settle<T>(
  answer: unknown,
  read: (answer: unknown) => T,
  then: (value: T) => void,
  fail: (error: unknown) => void,
): void {
  let value: T;
  try {
    value = read(answer);
  } catch (error) {
    return fail(error);
  }
  then(value);
}

/** Only an explicit `valid: true` accepts. */
function readVerdict(answer: unknown): Verdict {
  const verdict = answer as Partial<TokenVerdict> | null | undefined;
  const valid = verdict?.valid;
  if (typeof valid !== 'boolean') throw malformedAnswer('ERR_MALFORMED_VERDICT');
  if (valid)
    return { valid, principal: (verdict as { principal?: unknown }).principal, reason: undefined };
  const reason = (verdict as { reason?: unknown }).reason;
  const known = typeof reason === 'string' ? (reason as TokenRejectionReason) : undefined;
  return { valid, principal: undefined, reason: known };
}

// A store may hand back an absent tag as `null` or `undefined`.
function readOutcome(answer: unknown, plant: NewPlant): Stored {
  const outcome = answer as { created?: unknown; existing?: Partial<Plant> | null } | null;
  const created = outcome?.created;
  if (created === true) return 'created';
  const existing = created === false ? outcome?.existing : undefined;
  const name = existing?.name;
  const tag = existing?.tag ?? undefined;
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
    throw malformedAnswer('ERR_MALFORMED_OUTCOME');
  }
  return name === plant.name && tag === plant.tag ? 'replayed' : 'conflict';
}

/** Whether a verifier's answer is a `TokenVerdict`. */
export function isVerdict(verdict: unknown): verdict is TokenVerdict {
  try {
    readVerdict(verdict);
    return true;
  } catch {
    return false;
  }
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
