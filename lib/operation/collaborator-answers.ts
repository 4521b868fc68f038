/**
 * Where the operation meets the host's collaborators: each is called, its answer awaited when it
 * is a thenable, and read once into plain values, all inside one guard. Whatever the host's code
 * does on the way (throws, rejects, a getter or a `Proxy` that throws, a thenable whose `then`
 * throws, one that settles twice) ends in exactly one of `then` or `fail`.
 *
 * @module
 */

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
  /** What the verifier learned of the caller, when it accepted the token. */
  readonly principal: unknown;
  /** Why it refused the token, when it said with a known reason. */
  readonly reason: TokenRejectionReason | undefined;
}

/** What a repository's answer came to for the plant it was given. */
export type Stored = 'created' | 'replayed' | 'conflict';

/**
 * The collaborators as the operation calls them: each call ends in `then` or `fail`, once.
 * The diagnostics channels wrap these calls from outside the operation.
 */
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

/** The store's verifier and repository, called through the guard. */
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

/**
 * Calls a collaborator and reads its answer, or what its thenable settles to first, with `read`.
 * `then` runs outside the guard's `try` unless a thenable settled synchronously inside its own
 * `then`.
 */
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

/** A verifier's answer as a `Verdict`; only an explicit `valid: true` accepts. */
function readVerdict(answer: unknown): Verdict {
  const verdict = answer as Partial<TokenVerdict> | null | undefined;
  const valid = verdict?.valid;
  if (typeof valid !== 'boolean') throw malformedAnswer('ERR_MALFORMED_VERDICT', answer);
  if (valid)
    return { valid, principal: (verdict as { principal?: unknown }).principal, reason: undefined };
  const reason = (verdict as { reason?: unknown }).reason;
  const known = typeof reason === 'string' ? (reason as TokenRejectionReason) : undefined;
  return { valid, principal: undefined, reason: known };
}

/**
 * A repository's answer for `plant`: created, or the stored plant's content compared with it (a
 * store may hand back an absent tag as `null` or `undefined`).
 */
function readOutcome(answer: unknown, plant: NewPlant): Stored {
  const outcome = answer as { created?: unknown; existing?: Partial<Plant> | null } | null;
  const created = outcome?.created;
  if (created === true) return 'created';
  const existing = created === false ? outcome?.existing : undefined;
  const name = existing?.name;
  const tag = existing?.tag ?? undefined;
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
    throw malformedAnswer('ERR_MALFORMED_OUTCOME', answer);
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

/** What each collaborator must answer. */
const SHAPES = {
  ERR_MALFORMED_VERDICT: 'TokenVerifier.verify must answer { valid: true } or { valid: false }',
  ERR_MALFORMED_OUTCOME:
    'PlantRepository.create must answer { created: true } or { created: false, existing: { name, tag? } }',
} as const;

/**
 * The error for a collaborator's answer of the wrong shape: what it must be and what it was.
 *
 * @param code Which collaborator answered.
 * @param answer What it answered; only its kind goes into the message.
 * @returns The error for `onError`.
 */
export function malformedAnswer(code: keyof typeof SHAPES, answer: unknown): PlantApiError {
  return new PlantApiError(code, `${SHAPES[code]}, and it answered ${kindOf(answer)}`);
}

/** A value as a message names it: its kind, never its content (a principal may be personal). */
function kindOf(value: unknown): string {
  switch (typeof value) {
    case 'object': {
      if (value === null) return 'null';
      let keys: string;
      try {
        keys = Object.keys(value).join(', ');
      } catch {
        return 'an object';
      }
      return `an object with the keys [${keys}]`;
    }
    case 'undefined':
    case 'boolean':
      return String(value);
    default:
      return `a ${typeof value}`;
  }
}

/**
 * The code of a `PlantApiError`, or `undefined` for any other error, one that cannot even be
 * inspected included.
 */
export function codeOf(error: unknown): PlantApiErrorCode | undefined {
  try {
    return error instanceof PlantApiError ? error.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error a create's deadline reports: the collaborator that had not answered by then.
 *
 * @param waitingOn The collaborator the create waited on.
 * @param timeoutMs The store's deadline, named in the message.
 * @returns The error for `onError`.
 */
export function unansweredAtDeadline(
  waitingOn: 'verifier' | 'repository',
  timeoutMs: number,
): PlantApiError {
  const [code, collaborator] =
    waitingOn === 'verifier'
      ? (['ERR_VERIFIER_TIMEOUT', 'TokenVerifier'] as const)
      : (['ERR_REPOSITORY_TIMEOUT', 'PlantRepository'] as const);
  const error = new PlantApiError(
    code,
    `the ${collaborator} did not answer within ${timeoutMs} ms`,
  );
  // Written out now: an unread stack keeps its frames, and so the hung create, alive for as
  // long as the host keeps the error.
  void error.stack;
  return error;
}
