import { printable } from './describe-value.ts';

/**
 * What a conformance run found: the checks that held, and the ones that broke a rule. A
 * `checkServer` run stopped by its first request holds one failure and nothing else: its rule is
 * `reach` when the server gave no answer, `token` when it refused the token with `401`.
 */
export interface ConformanceReport {
  /** The names of the checks that passed, in the order they ran. */
  readonly passed: string[];
  /** The checks that failed, in the order they ran, each with the error that names its rule. */
  readonly failed: { name: string; error: Error }[];
  /** The checks that were not run, each with the reason (`checkServer`'s `mounted`, say). */
  readonly skipped: { name: string; reason: string }[];
}

/** One check of a conformance run: its name begins with the rule it holds the code to. */
export interface ConformanceCheck {
  /** `<rule>: <what it checks>`, as a test runner shows it. */
  readonly name: string;
  /** The signal fires when the check ends or its deadline passes: what it started stops then. */
  readonly run: (signal: AbortSignal) => Promise<void>;
  /** Why the check is not run, when it is not. */
  readonly skip?: string | undefined;
}

/**
 * A rule the code under test broke.
 *
 * The message begins with the rule (`replay: …`), so a runner's output names it without a stack
 * trace; control and bidi characters in the detail are escaped, so a message quoting a server is
 * safe to print.
 *
 * @example
 * ```ts
 * import { ConformanceError } from 'plant-store/testing';
 *
 * const error = new ConformanceError('replay', 'the stored plant changed');
 * console.log(error.rule, error.message); // replay replay: the stored plant changed
 * ```
 */
export class ConformanceError extends Error {
  /** The rule that was broken, as the check's name begins. */
  readonly rule: string;
  /** What happened, for a person: the message after the rule. */
  readonly detail: string;

  /**
   * @param rule The rule that was broken.
   * @param detail What happened, for a person.
   * @param options The `cause`, when another error led to this one.
   */
  constructor(rule: string, detail: string, options?: { cause?: unknown }) {
    const shown = printable(detail);
    super(`${rule}: ${shown}`, options);
    this.name = 'ConformanceError';
    this.rule = rule;
    this.detail = shown;
  }
}

/** What one check ended with, as `runChecks` hands it to `onResult`. */
export interface CheckResult {
  /** The check's name. */
  readonly name: string;
  /** The error that failed it; absent when it passed or was skipped. */
  readonly error?: Error;
  /** Why it was not run; absent when it ran. */
  readonly skipped?: string;
}

/** Runs `checks` in order; a throw that is no `ConformanceError` fails under the check's rule. */
export async function runChecks(
  checks: readonly ConformanceCheck[],
  timeoutMs: number,
  onResult?: (result: CheckResult) => void,
): Promise<ConformanceReport> {
  const report: ConformanceReport = { passed: [], failed: [], skipped: [] };
  for (const check of checks) {
    if (check.skip !== undefined) {
      report.skipped.push({ name: check.name, reason: check.skip });
      onResult?.({ name: check.name, skipped: check.skip });
      continue;
    }
    const error = await runCheck(check, timeoutMs);
    if (error === undefined) report.passed.push(check.name);
    else report.failed.push({ name: check.name, error });
    onResult?.(error === undefined ? { name: check.name } : { name: check.name, error });
  }
  return report;
}

/** The error that failed the check, or `undefined`; what it started stops when it ends. */
export async function runCheck(
  check: ConformanceCheck,
  timeoutMs: number,
): Promise<Error | undefined> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new ConformanceError(
        ruleOf(check.name),
        `did not finish within ${timeoutMs} ms`,
      );
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    await Promise.race([check.run(controller.signal), late]);
    return undefined;
  } catch (error) {
    if (error instanceof ConformanceError) return error;
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return new ConformanceError(ruleOf(check.name), `threw ${detail}`, { cause: error });
  } finally {
    // Deno's test sanitizers fail a test that leaves a timer behind.
    clearTimeout(timer);
    // A check that failed early may still have requests in flight (one of 20 concurrent ones).
    controller.abort(new Error('the check has ended'));
  }
}

/** The rule a check's name begins with. */
export function ruleOf(name: string): string {
  const colon = name.indexOf(': ');
  return colon === -1 ? name : name.slice(0, colon);
}

export function registerChecks(
  test: RunnerTest,
  checks: readonly ConformanceCheck[],
  timeoutMs: number,
): void {
  // A skipped check is left out: the `(name, fn)` form cannot tell a runner to skip.
  for (const check of checks.filter(({ skip }) => skip === undefined)) {
    test(check.name, async () => {
      const error = await runCheck(check, timeoutMs);
      if (error !== undefined) throw error;
    });
  }
}

/** A runner's `(name, fn)` form: `test` of `node:test` or `bun:test`, `it`, or `Deno.test`. */
export type RunnerTest = (name: string, fn: () => Promise<void>) => unknown;

export function checkCount(caller: string, name: string, value: unknown, min = 1): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw new TypeError(
      `${caller}: ${name} must be an integer of at least ${min}, got ${String(value)}`,
    );
  }
}
