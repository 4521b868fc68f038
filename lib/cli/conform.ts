/**
 * `plant-store conform <base-url> --token <token>`: any running server that claims the Plant
 * Store API, checked against the contract by `checkServer` (`USAGE` says the rest).
 *
 * @module
 */

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_BODY_BYTES } from '../index.ts';
import { B64TOKEN, B64TOKEN_RULE } from '../operation/bearer-token.ts';
import { type CheckResult, ConformanceError, checkServer } from '../testing.ts';
import { oneLine } from './fail.ts';
import { junitXml, tapResult, tapSummary } from './conform-report.ts';

/** The process's streams, unless a test passes its own. */
export interface ConformOutput {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

const USAGE = `Usage: plant-store conform <base-url> --token <token> [--mounted] [--junit FILE] [--max-body-bytes N] [--first-id N]

Checks a running server that claims the Plant Store API against its contract, printing TAP.
When its first request gets no answer, or a 401 (the token was refused), that is the one failure.
  --token           a bearer token the server accepts (a made-up one stands for a rejected one);
                    never printed: where the server writes it back, the output says <token>
  --mounted         the API is mounted in a host (a Fastify prefix, an Express router) whose own
                    404 answers unknown paths under the prefix: skip that check, saying so
  --junit FILE      also write the results as JUnit XML
  --max-body-bytes  the server's body limit (default ${DEFAULT_MAX_BODY_BYTES})
  --first-id        the first of the run's 100 ids (default: random; printed, to replay a run)
Each answer is read up to 1 MiB; text from the server is printed with control characters escaped.
Exit code: 0 when no check failed, 1 when one failed, 2 for a usage error (or an unwritable
--junit FILE).
`;

/** Runs the command on the arguments after `conform`; resolves to the exit code. */
export async function runConform(
  args: readonly string[],
  output: ConformOutput = process,
): Promise<number> {
  const usage = (message: string) => {
    output.stderr.write(`plant-store conform: ${message} (try plant-store conform --help)\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        token: { type: 'string' },
        mounted: { type: 'boolean' },
        junit: { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'first-id': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // parseArgs's first sentence names the option; the rest explains `--`, which --help covers.
    return usage(oneLine(error).split('. ')[0] ?? '');
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    output.stdout.write(USAGE);
    return 0;
  }
  const [baseUrl, ...extra] = positionals;
  if (baseUrl === undefined || extra.length > 0) return usage('give one base URL');
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) return usage(`not an http(s) URL: ${baseUrl}`);
  if (values.token === undefined || values.token === '') return usage('give --token <token>');
  if (!B64TOKEN.test(values.token)) {
    return usage(`--token must be a bearer token ${B64TOKEN_RULE}`);
  }
  const maxBodyBytes = integer(values['max-body-bytes']);
  if (maxBodyBytes === null || (maxBodyBytes !== undefined && maxBodyBytes < 64n)) {
    return usage('--max-body-bytes must be an integer of at least 64');
  }
  const firstId = integer(values['first-id']);
  if (firstId === null || (firstId !== undefined && (firstId < 2n ** 40n || firstId > 2n ** 52n))) {
    return usage('--first-id must be an integer from 2^40 to 2^52');
  }

  const results: CheckResult[] = [];
  const started = performance.now();
  output.stdout.write(`TAP version 14\n# plant-store conform ${baseUrl}\n`);
  await checkServer({
    baseUrl,
    token: values.token,
    maxBodyBytes: maxBodyBytes === undefined ? undefined : Number(maxBodyBytes),
    firstId,
    mounted: values.mounted === true,
    onIds: (ids) => output.stdout.write(`# writes ${ids}\n`),
    onResult: (result) => {
      const shown = forCommandLine(result);
      results.push(shown);
      output.stdout.write(tapResult(results.length, shown));
    },
  });
  output.stdout.write(`1..${results.length}\n${tapSummary(results)}`);
  if (values.junit !== undefined) {
    try {
      writeFileSync(values.junit, junitXml(results, performance.now() - started));
    } catch (error) {
      output.stderr.write(`plant-store conform: cannot write ${values.junit}: ${oneLine(error)}\n`);
      return 2;
    }
  }
  return results.every((result) => result.error === undefined) ? 0 : 1;
}

/** A refused token, as this command's user gave it: with `--token`. */
function forCommandLine(result: CheckResult): CheckResult {
  const { error } = result;
  if (!(error instanceof ConformanceError) || error.rule !== 'token') return result;
  const shown = new ConformanceError('token', `${error.detail}; check --token`, {
    cause: error.cause,
  });
  return { ...result, error: shown };
}

/** `undefined` when absent, `null` when not a decimal integer. */
function integer(text: string | undefined): bigint | undefined | null {
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? BigInt(text) : null;
}
