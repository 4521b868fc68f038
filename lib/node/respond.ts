/**
 * The generic path: any fetch handler, answered through a native `Request` and `Response`, with
 * `request.signal` aborted when the client leaves before the response is finished.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import { type ListenerConfig, report } from './listener-config.ts';
import { toRequest } from './request.ts';
import { type BodyState, drainRequest } from './request-body.ts';
import { sendReply, sendResponse } from './send.ts';
import type { FetchHandler } from './types.ts';

/**
 * Answers one request through `handler`: builds the `Request`, awaits the `Response` (a handler
 * that throws, or returns anything else, is a `500` Error body reported to `onError`) and sends
 * it. Rejects only if something nothing here expects goes wrong.
 */
export async function respond(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
): Promise<void> {
  const controller = new AbortController();
  const body: BodyState = { onData: undefined };
  // One listener for both ends of the exchange: the connection closed before the response was
  // finished (the client went away: abort), or after it with the request body still unread.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
    else if (!req.complete) drainRequest(req, body, config);
  });

  const request = toRequest(req, controller.signal, body);
  if (typeof request === 'string') {
    // A client that sends a request fetch cannot represent is not worth keeping.
    res.shouldKeepAlive = false;
    sendReply(res, errorReply('ERR_BAD_REQUEST', request));
    return;
  }

  let response: Response;
  try {
    response = await handler(request);
    if (!(response instanceof Response)) {
      throw new TypeError('the fetch handler did not return a Response');
    }
  } catch (error) {
    if (!controller.signal.aborted) report(config.onError, error);
    if (!res.destroyed) sendReply(res, errorReply('ERR_INTERNAL'));
    return;
  }
  await sendResponse(req, res, response, config, controller.signal);
}
