import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorReply, errorReply, replyResponse } from '../errors.ts';
import { isTakenOver } from './connection.ts';
import { isResponseGone } from './http2.ts';
import type { ListenerConfig } from './types.ts';
import type { NodeRequest } from './node-request.ts';
import { type BodyState, drainRequest, keepAliveOrClose } from './request-body.ts';
import { sendReply, sendResponse } from './send.ts';
import type { FetchHandler } from '../types.ts';

/**
 * Answers one request through `handler` and sends its `Response`, or hands it to a framework's
 * `hand`; a throw or a non-`Response` is a `500` reported to `onError`.
 */
export async function respond(
  handler: FetchHandler,
  request: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  hand?: (response: Response) => void,
): Promise<void> {
  const controller = new AbortController();
  const body: BodyState = { res, clientLeft: () => controller.abort(), onData: undefined };
  // Closed before the response finished, the client left; after it, an unread body is drained.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
    else if (!req.complete && res.shouldKeepAlive) drainRequest(req, body, config);
  });

  const native = request.toRequest(controller.signal, body);
  if (!(native instanceof Request)) {
    // A client that sends what fetch cannot represent is not worth keeping.
    res.shouldKeepAlive = false;
    fail(res, native, hand);
    return;
  }

  let response: Response;
  try {
    response = await handler(native);
    if (!(response instanceof Response)) {
      throw new TypeError('the fetch handler did not return a Response');
    }
  } catch (error) {
    // A client that left, or a framing error answered already, is no server error.
    if (!controller.signal.aborted && !isTakenOver(res)) config.onError(error);
    fail(res, errorReply('ERR_INTERNAL'), hand);
    return;
  }
  if (hand === undefined) {
    await sendResponse(req, res, response, config, controller.signal);
    return;
  }
  keepAliveOrClose(req, res, config, response.status);
  hand(response);
}

/** Answers with an Error body, written here or handed to the framework. */
function fail(res: ServerResponse, reply: ErrorReply, hand?: (response: Response) => void): void {
  if (hand !== undefined) hand(replyResponse(reply));
  else if (!isResponseGone(res)) sendReply(res, reply);
}
