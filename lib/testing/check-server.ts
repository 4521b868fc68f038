import { DEFAULT_MAX_BODY_BYTES } from '../types.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { B64TOKEN, B64TOKEN_RULE } from '../operation/bearer-token.ts';
import { type CheckResult, type ConformanceReport, checkCount, runChecks } from './report.ts';
import { describeIds, idPlan, randomFirstId, randomWord, type ServerPlan } from './server-plan.ts';
import { reachServer } from './server-reach.ts';
import { requestChecks } from './server-request-checks.ts';
import { storeChecks } from './server-store-checks.ts';
import { createTokenMask } from './token-mask.ts';

/** Options of `checkServer`. */
export interface CheckServerOptions {
  /** The server's base URL: the API's routes are under it (`<baseUrl>/plants`). */
  readonly baseUrl: string;
  /**
   * A bearer token the server accepts (an RFC 6750 `b64token`). It never appears in the report:
   * wherever the server writes it back, whole or escaped, the report says `<token>`.
   */
  readonly token: string;
  /**
   * The server's body limit in bytes; at least 64.
   * @default 102400
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * The first id of the run's range of 100, from 2^40 to 2^52; fix it only to replay a run.
   * @default a random id
   */
  readonly firstId?: bigint | undefined;
  /**
   * The longest one check may take, in milliseconds; its requests are then aborted.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Whether a host (a Fastify prefix, an Express router) answers unknown paths under the base URL
   * with its own 404, so that this check is skipped.
   * @default false
   */
  readonly mounted?: boolean | undefined;
  /**
   * Told which ids the run writes, as one line, before it writes any; not told when the run
   * stops at its first request.
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
 * Checks a running server, in any language, against the Plant Store API's contract over HTTP.
 *
 * Its first request, an authorized `POST /plants` without a body, writes nothing: when it gets no
 * answer (a dead URL) or a `401` (a wrong token), the report holds that one failure, under the
 * rule `reach` or `token`, and nothing more is checked. Then the checks run in the order of the
 * behaviour table, each failure naming its rule. It writes only ids it picks (a random range
 * unless `firstId` is fixed), reads at most 1 MiB of each answer, aborts each check's requests
 * when it ends, escapes what the server sent and masks the token in it, so it is safe to point
 * at any server.
 *
 * @param options The server, a token it accepts, and the limits.
 * @returns The report: the checks that passed, failed and were skipped.
 * @throws {TypeError} When `baseUrl` is not an http(s) URL, `token` is not a bearer token, or an
 *   option is unknown or out of range.
 * @example
 * ```ts
 * import { checkServer } from 'plant-store/testing';
 *
 * const report = await checkServer({ baseUrl: 'http://127.0.0.1:3000', token: 's3cr3t' });
 * for (const { error } of report.failed) console.error(error.message);
 * ```
 */
export async function checkServer(options: CheckServerOptions): Promise<ConformanceReport> {
  const plan = planOf(options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const stop = await reachServer(plan.server, timeoutMs);
  if (stop !== undefined) {
    options.onResult?.(stop);
    return { passed: [], failed: [stop], skipped: [] };
  }
  options.onIds?.(describeIds(plan.ids));
  return runChecks([...requestChecks(plan), ...storeChecks(plan)], timeoutMs, options.onResult);
}

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
  // Never quoted: a token with a line break in it would otherwise reach a log.
  if (!B64TOKEN.test(options.token)) {
    throw new TypeError(`checkServer: token must be a bearer token ${B64TOKEN_RULE}`);
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
    server: {
      baseUrl,
      basePath: url.pathname.replace(/\/+$/, ''),
      token: options.token,
      hide: createTokenMask(options.token),
    },
    mounted: options.mounted ?? false,
    rejectedToken: `conform-rejected-${randomWord()}`,
    runId: randomWord(),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ids: idPlan(first),
  };
}

/** `URL.parse`, which Node before 20.18 lacks. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
