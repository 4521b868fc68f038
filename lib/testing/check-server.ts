/**
 * `checkServer`: any running server that claims the Plant Store API, in any language, checked
 * over HTTP against the behaviour contract, in the order of its table.
 *
 * @module
 */

import { checkOptionNames } from '../guards/check-option-names.ts';
import { type CheckResult, type ConformanceReport, checkCount, runChecks } from './report.ts';
import { describeIds, idPlan, randomFirstId, randomWord, type ServerPlan } from './server-plan.ts';
import { requestChecks } from './server-request-checks.ts';
import { storeChecks } from './server-store-checks.ts';

/** Options of `checkServer`. */
export interface CheckServerOptions {
  /**
   * The server's base URL: the API's routes are under it (`<baseUrl>/plants`). Messages name
   * each request by its full path, the base URL's included.
   */
  readonly baseUrl: string;
  /** A bearer token the server accepts. It never appears in the report. */
  readonly token: string;
  /**
   * The server's body limit in bytes; at least 64.
   * @default 102400
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * The first id of the run's range of 100 (from 2^40 to 2^52); the near-±2^62 pairs follow
   * from it. Fix it only to replay a run: a fresh one keeps runs apart.
   * @default a random id
   */
  readonly firstId?: bigint | undefined;
  /**
   * The longest one check may take, in milliseconds; at its end the check's requests are
   * aborted.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Whether the API is mounted in a host (a Fastify prefix, an Express router), which answers
   * unknown paths under the prefix with its own 404: the check of that `404` is then skipped,
   * and the report says so.
   * @default false
   */
  readonly mounted?: boolean | undefined;
  /**
   * Told which ids the run writes, as one line, before it writes any.
   * @default undefined
   */
  readonly onIds?: ((ids: string) => void) | undefined;
  /**
   * Told of each check's result as it comes, for output that streams.
   * @default undefined
   */
  readonly onResult?: ((result: CheckResult) => void) | undefined;
}

const OPTION_NAMES = [
  'baseUrl',
  'token',
  'maxBodyBytes',
  'firstId',
  'timeoutMs',
  'mounted',
  'onIds',
  'onResult',
];

/**
 * Checks a running server against the Plant Store API's contract over HTTP, with `fetch`: the
 * OpenAPI document it serves, `404` and `405` (with `Allow`), the bearer challenges with and
 * without `error="invalid_token"` (a token made up for the run stands for a rejected one), the
 * token checked before the body, `400` for a missing body, `415`, `413`, `400` for bad UTF-8,
 * bad JSON and each shape rule, `200`, replay and `409`, one winner among concurrent creates,
 * exact int64 ids at both ends and past 2^53, the Error body of every error, and HTTP basics.
 * It writes only ids it picks: a random range of 100 per run, pairs derived from it near ±2^62
 * and past 2^53, and the four ids at the ends of int64 (2^63-1, -2^63 and their neighbours),
 * each under a fixed name so that a rerun replays it. Each failure names its rule. It is safe to
 * point at any server: each answer is read up to 1 MiB, each check's requests are aborted when
 * it ends or its deadline passes (nothing stays open once the run resolves), and text the server
 * sent is quoted with control and bidi characters escaped.
 *
 * @param options The server, a token it accepts, and the limits.
 * @returns The report.
 * @throws {TypeError} When `baseUrl` is not an http(s) URL, `token` is empty, or an option is
 *   unknown or out of range.
 * @example
 * ```ts
 * import { checkServer } from 'plant-store/testing';
 *
 * const report = await checkServer({ baseUrl: 'http://127.0.0.1:3000', token: 's3cr3t' });
 * for (const { error } of report.failed) console.error(error.message);
 * ```
 */
export async function checkServer(options: CheckServerOptions): Promise<ConformanceReport> {
  return runChecks(serverChecks(options), options.timeoutMs ?? 10_000, options.onResult);
}

/**
 * The checks of one run, for `checkServer` and the `conform` command.
 *
 * @param options As `checkServer`'s.
 * @returns The checks, in the contract's order.
 */
function serverChecks(options: CheckServerOptions) {
  const plan = planOf(options);
  options.onIds?.(describeIds(plan.ids));
  return [...requestChecks(plan), ...storeChecks(plan)];
}

/**
 * Checks `checkServer`'s options and makes the run's plan.
 *
 * @param options As `checkServer`'s.
 * @returns The plan.
 */
function planOf(options: CheckServerOptions): ServerPlan {
  checkOptionNames('checkServer', options, OPTION_NAMES);
  const baseUrl = String(options.baseUrl).replace(/\/+$/, '');
  const url = /^https?:\/\/[^/]/i.test(baseUrl) ? parseUrl(baseUrl) : undefined;
  if (typeof options.baseUrl !== 'string' || url === undefined) {
    throw new TypeError(
      `checkServer: baseUrl must be an http or https URL, got ${String(options.baseUrl)}`,
    );
  }
  if (typeof options.token !== 'string' || options.token === '') {
    throw new TypeError('checkServer: token must be a token the server accepts');
  }
  // Smaller, no valid create fits the limit, and the size checks cannot be made.
  checkCount('checkServer', 'maxBodyBytes', options.maxBodyBytes, 64);
  checkCount('checkServer', 'timeoutMs', options.timeoutMs);
  if (options.mounted !== undefined && typeof options.mounted !== 'boolean') {
    throw new TypeError(`checkServer: mounted must be a boolean, got ${String(options.mounted)}`);
  }
  const first = options.firstId ?? randomFirstId();
  if (typeof first !== 'bigint' || first < 2n ** 40n || first > 2n ** 52n) {
    throw new TypeError(
      `checkServer: firstId must be a bigint from 2^40 to 2^52, got ${String(first)}`,
    );
  }
  return {
    server: { baseUrl, basePath: url.pathname.replace(/\/+$/, ''), token: options.token },
    mounted: options.mounted ?? false,
    rejectedToken: `conform-rejected-${randomWord()}`,
    runId: randomWord(),
    maxBodyBytes: options.maxBodyBytes ?? 102_400,
    ids: idPlan(first),
  };
}

/** The URL, or `undefined` when it is not one (`URL.parse` is missing from Node before 20.18). */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
