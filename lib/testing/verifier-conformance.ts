import { isVerdict, malformedAnswer } from '../operation/collaborator-answers.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import type { TokenVerdict, TokenVerifier } from '../types.ts';
import { describeValue, sameValue } from './describe-value.ts';
import {
  ConformanceError,
  type ConformanceCheck,
  checkCount,
  type ConformanceReport,
  type RunnerTest,
  registerChecks,
  runChecks,
} from './report.ts';

/** Tokens whose verdict the caller knows, for `runVerifierConformance`. */
export interface VerifierCases {
  /** Tokens the verifier must accept, each alone or with the principal it must hand back. */
  readonly valid: ReadonlyArray<string | { readonly token: string; readonly principal?: unknown }>;
  /** Tokens the verifier must refuse with `{ valid: false }`: unknown, expired, badly signed. */
  readonly invalid: readonly string[];
  /**
   * The longest one check may take, in milliseconds.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
}

/** Builds the verifier under test; called once per check. */
export type MakeVerifier<Principal = unknown> = () =>
  TokenVerifier<Principal> | Promise<TokenVerifier<Principal>>;

const CASE_NAMES = ['valid', 'invalid', 'timeoutMs'] as const;
const VERDICT_SHAPE = 'verdict shape';

/**
 * Holds a `TokenVerifier` to the contract, with tokens whose verdict is known, and reports what
 * held.
 *
 * Valid tokens must be accepted (with their principal, when one is given); invalid ones and near
 * misses of valid ones must be refused with `{ valid: false }` rather than a throw, which is a
 * `500`. The verdicts must hold under concurrency, and every answer must have the verdict's
 * shape. Each failure's message begins with the rule it broke.
 *
 * @param makeVerifier Builds the verifier; called once per check.
 * @param cases Tokens whose verdict is known.
 * @returns The report.
 * @throws {TypeError} When `makeVerifier` is not a function, or `cases` has an unknown key or
 *   lists no valid token.
 * @example
 * ```ts
 * import { createStaticTokenVerifier } from 'plant-store';
 * import { runVerifierConformance } from 'plant-store/testing';
 *
 * const report = await runVerifierConformance(() => createStaticTokenVerifier(['s3cr3t']), {
 *   valid: ['s3cr3t'],
 *   invalid: ['guess'],
 * });
 * for (const { error } of report.failed) console.error(error.message);
 * ```
 */
export async function runVerifierConformance<Principal = unknown>(
  makeVerifier: MakeVerifier<Principal>,
  cases: VerifierCases,
): Promise<ConformanceReport> {
  const checks = verifierChecks('runVerifierConformance', makeVerifier, cases);
  return runChecks(checks, cases.timeoutMs ?? 10_000);
}

/**
 * Registers each check of `runVerifierConformance` as one test of the host's runner.
 *
 * Pass `test` from `node:test` or `bun:test`, `it` from Vitest or Jest, or `Deno.test`, and call
 * it where tests are declared.
 *
 * @param test The runner's `(name, fn)` registration function.
 * @param makeVerifier Builds the verifier; called once per test.
 * @param cases Tokens whose verdict is known.
 * @throws {TypeError} As `runVerifierConformance`, or when `test` is not a function.
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import { createStaticTokenVerifier } from 'plant-store';
 * import { registerVerifierConformance } from 'plant-store/testing';
 *
 * registerVerifierConformance(test, () => createStaticTokenVerifier(['s3cr3t']), {
 *   valid: ['s3cr3t'],
 *   invalid: ['guess'],
 * });
 * ```
 */
export function registerVerifierConformance<Principal = unknown>(
  test: RunnerTest,
  makeVerifier: MakeVerifier<Principal>,
  cases: VerifierCases,
): void {
  if (typeof test !== 'function') {
    throw new TypeError("registerVerifierConformance needs the runner's test function first");
  }
  const checks = verifierChecks('registerVerifierConformance', makeVerifier, cases);
  registerChecks(test, checks, cases.timeoutMs ?? 10_000);
}

function verifierChecks<Principal>(
  caller: string,
  makeVerifier: MakeVerifier<Principal>,
  cases: VerifierCases,
): ConformanceCheck[] {
  if (typeof makeVerifier !== 'function') {
    throw new TypeError(`${caller} needs a function that makes the verifier`);
  }
  checkOptionNames(caller, cases, CASE_NAMES);
  checkCount(caller, 'timeoutMs', cases.timeoutMs);
  if (!Array.isArray(cases.valid) || cases.valid.length === 0 || !Array.isArray(cases.invalid)) {
    throw new TypeError(`${caller} needs cases { valid: [at least one token], invalid: [tokens] }`);
  }
  const valid = cases.valid.map((entry) => (typeof entry === 'string' ? { token: entry } : entry));
  const withVerifier = (body: (verifier: TokenVerifier<Principal>) => Promise<void>) => async () =>
    body(await makeVerifier());

  const checks: ConformanceCheck[] = [
    {
      name: 'accepts: answers { valid: true } for each valid token',
      run: withVerifier(async (verifier) => {
        for (const [i, { token }] of valid.entries()) {
          const verdict = await verify(verifier, token);
          if (!verdict.valid) throw new ConformanceError('accepts', `valid token ${i} was refused`);
        }
      }),
    },
    {
      name: 'refuses: answers { valid: false } for each invalid token, without throwing',
      run: withVerifier(async (verifier) => {
        for (const [i, token] of cases.invalid.entries())
          await expectRefused(verifier, token, `invalid token ${i}`);
      }),
    },
    {
      name: 'refuses: answers { valid: false } for a valid token with a character dropped, added or changed',
      run: withVerifier(async (verifier) => {
        for (const [i, { token }] of valid.entries()) {
          for (const [how, miss] of nearMisses(token)) {
            await expectRefused(verifier, miss, `valid token ${i} with ${how}`);
          }
        }
      }),
    },
    {
      name: 'concurrency: answers the same verdicts when 20 checks run at once',
      run: withVerifier(async (verifier) => {
        const tokens = [...valid.map(({ token }) => token), ...cases.invalid];
        const all = Array.from({ length: 20 }, (_, i) => tokens[i % tokens.length] as string);
        const verdicts = await Promise.all(all.map((token) => verify(verifier, token)));
        for (const [i, verdict] of verdicts.entries()) {
          const expected = i % tokens.length < valid.length;
          if (verdict.valid !== expected) {
            throw new ConformanceError(
              'concurrency',
              `check ${i} answered valid: ${verdict.valid} among concurrent ones; alone it is ${expected}`,
            );
          }
        }
      }),
    },
  ];
  if (valid.some((entry) => 'principal' in entry)) {
    checks.splice(1, 0, {
      name: 'principal: hands back the expected principal for each valid token',
      run: withVerifier(async (verifier) => {
        for (const [i, entry] of valid.entries()) {
          if (!('principal' in entry)) continue;
          const verdict = await verify(verifier, entry.token);
          const principal = verdict.valid ? verdict.principal : undefined;
          if (!verdict.valid || !sameValue(principal, entry.principal)) {
            throw new ConformanceError(
              'principal',
              `valid token ${i} answered ${describeValue(verdict)}; expected the principal ${describeValue(entry.principal)}`,
            );
          }
        }
      }),
    });
  }
  return checks;
}

/** One `verify` with a live signal, its answer checked for shape. */
async function verify<Principal>(
  verifier: TokenVerifier<Principal>,
  token: string,
): Promise<TokenVerdict<Principal>> {
  const answer: unknown = await verifier.verify(token, { signal: new AbortController().signal });
  if (isVerdict(answer)) return answer as TokenVerdict<Principal>;
  throw new ConformanceError(
    VERDICT_SHAPE,
    `${malformedAnswer('ERR_MALFORMED_VERDICT').message}, and it answered ${describeValue(answer)}`,
  );
}

async function expectRefused<Principal>(
  verifier: TokenVerifier<Principal>,
  token: string,
  what: string,
) {
  let verdict: TokenVerdict<Principal>;
  try {
    verdict = await verify(verifier, token);
  } catch (error) {
    if (error instanceof ConformanceError) throw error;
    throw new ConformanceError(
      'refuses',
      `${what} threw (a 500 for the client) instead of answering { valid: false }`,
      { cause: error },
    );
  }
  if (verdict.valid) throw new ConformanceError('refuses', `${what} was accepted`);
}

/**
 * Tokens one edit away from `token`, kept to `b64token` characters. The first character is the
 * one changed: the last may carry only padding bits of a base64url signature.
 */
function nearMisses(token: string): Array<readonly [string, string]> {
  const misses: Array<readonly [string, string]> = [
    ['its last character dropped', token.slice(0, -1)],
    ['a character added', `${token}A`],
    ['its first character changed', `${token.startsWith('a') ? 'b' : 'a'}${token.slice(1)}`],
  ];
  return misses.filter(([, miss]) => miss !== '' && miss !== token);
}
