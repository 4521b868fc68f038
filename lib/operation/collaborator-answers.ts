/**
 * The shapes a host's collaborators must answer with, checked before the operation uses an
 * answer: a verifier's `TokenVerdict` and a repository's `CreatePlantOutcome`. An answer of
 * another shape is a bug in the host's code, so it becomes an error that names the
 * collaborator and the shape (for `onError`), never a client's `401` or an internal `TypeError`;
 * so does an answer that had not come when the create's deadline passed.
 *
 * @module
 */

import { PlantApiError } from '../errors.ts';
import type { CreatePlantOutcome, Plant, TokenVerdict } from '../types.ts';

/** Whether a verifier's answer is a `TokenVerdict`. */
export function isVerdict(verdict: unknown): verdict is TokenVerdict {
  return typeof (verdict as TokenVerdict | null)?.valid === 'boolean';
}

/**
 * Whether a repository's answer is a `CreatePlantOutcome`: created, or not with the stored
 * plant (a store may hand back an absent tag as `null` or `undefined`).
 */
export function isOutcome(outcome: unknown): outcome is CreatePlantOutcome {
  const answer = outcome as { created?: unknown; existing?: Plant } | null | undefined;
  if (answer?.created === true) return true;
  const existing = answer?.existing;
  return (
    answer?.created === false &&
    typeof existing?.name === 'string' &&
    (existing.tag === undefined || existing.tag === null || typeof existing.tag === 'string')
  );
}

/** What each collaborator must answer. */
const SHAPES = {
  ERR_MALFORMED_VERDICT:
    'TokenVerifier.verify must answer (or resolve to) { valid: true, principal? } or { valid: false, reason? }',
  ERR_MALFORMED_OUTCOME:
    'PlantRepository.create must answer (or resolve to) { created: true } or { created: false, existing: { name, tag? } }',
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
    case 'object':
      return value === null ? 'null' : `an object with the keys [${Object.keys(value).join(', ')}]`;
    case 'undefined':
    case 'boolean':
      return String(value);
    default:
      return `a ${typeof value}`;
  }
}

/** Whether a collaborator's answer is a promise (or any thenable) rather than the value itself. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
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
    `the ${collaborator} had not answered when the create's deadline (${timeoutMs} ms) passed`,
  );
  // Written out now: an unread stack keeps its frames, and so the hung create, alive for as
  // long as the host keeps the error.
  void error.stack;
  return error;
}
