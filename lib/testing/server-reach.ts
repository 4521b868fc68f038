// A dead URL or a wrong token fails every check alike; the run's first request tells them apart
// from a server's mistakes, so that the report says so once and checks nothing more.

import { ConformanceError } from './report.ts';
import { bodyHint, errorText, open, readText, type Server } from './server-http.ts';

/** The check a run reports when its first request got no answer. */
const REACH = 'reach: answers a first request at the base URL';
/** The check a run reports when its first request was refused with `401`. */
const TOKEN = 'token: accepts the token it was given';

/**
 * Sends the run's first request, an authorized `POST /plants` without a body, which writes
 * nothing. Resolves to the one failure to report when it got no answer within `timeoutMs`, or a
 * `401`; to `undefined` for any other answer, which the checks then judge.
 */
export async function reachServer(
  server: Server,
  timeoutMs: number,
): Promise<{ name: string; error: ConformanceError } | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('no answer')), timeoutMs);
  const target = { ...server, rule: 'reach', signal: controller.signal };
  try {
    let opened;
    try {
      opened = await open(target, {});
    } catch (error) {
      const detail = controller.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : server.hide(errorText(error instanceof ConformanceError ? error.cause : error));
      const reach = new ConformanceError('reach', `cannot reach ${server.baseUrl}: ${detail}`, {
        cause: error,
      });
      return { name: REACH, error: reach };
    }
    const { response, request } = opened;
    if (response.status !== 401) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
    // The body may say why (an expired token, say), if it comes before the deadline.
    const text = await readText(target, response, request).catch(() => '');
    const answer = { status: 401, headers: response.headers, text, request, hide: server.hide };
    const refused = `the token was refused: POST ${server.basePath}/plants with it answered 401${bodyHint(answer)}`;
    return { name: TOKEN, error: new ConformanceError('token', refused) };
  } finally {
    // Deno's test sanitizers fail a test that leaves a timer behind.
    clearTimeout(timer);
    controller.abort(new Error('the first request has ended'));
  }
}
