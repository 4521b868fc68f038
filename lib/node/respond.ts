/**
 * The generic path: any fetch handler, answered through a native `Request` and `Response`, with
 * `request.signal` aborted when the client leaves before the response is finished.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import { plainHandlerOf } from '../store/plain-handler.ts';
import { isTakenOver } from './connection.ts';
import { type ListenerConfig, report } from './listener-config.ts';
import { pathOf } from './plain-path.ts';
import { toRequest } from './request.ts';
import { type BodyState, drainRequest, keepAliveOrClose } from './request-body.ts';
import { sendReply, sendResponse } from './send.ts';
import type { FetchHandler } from './types.ts';

/**
 * The methods the fetch standard forbids in a `Request` (https://fetch.spec.whatwg.org/#forbidden-method).
 */
const UNREPRESENTABLE_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

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
  const method = req.method ?? 'GET';
  if (UNREPRESENTABLE_METHODS.has(method)) {
    // No Request can carry it: a plant store routes it like any other method, others refuse it.
    const refusal =
      plainHandlerOf(handler)?.refuse(pathOf(req.url)) ??
      errorReply('ERR_NOT_IMPLEMENTED', `the method ${method} is not implemented`);
    keepAliveOrClose(req, res, config, refusal.status);
    sendReply(res, refusal);
    return;
  }
  const controller = new AbortController();
  const body: BodyState = { res, onData: undefined };
  // One listener for both ends of the exchange: the connection closed before the response was
  // finished (the client went away: abort), or after it with the request body still unread.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
    else if (!req.complete && res.shouldKeepAlive) drainRequest(req, body, config);
  });

  const request = toRequest(req, controller.signal, body);
  if (!(request instanceof Request)) {
    // A client that sends a request fetch cannot represent is not worth keeping.
    res.shouldKeepAlive = false;
    sendReply(res, request);
    return;
  }
  // Node reads nothing more on a connection after a request that asks for an upgrade: it is
  // answered, then closed, so no later request waits unanswered on it.
  if (request.headers.has('upgrade')) res.shouldKeepAlive = false;

  let response: Response;
  try {
    response = await handler(request);
    if (!(response instanceof Response)) {
      throw new TypeError('the fetch handler did not return a Response');
    }
  } catch (error) {
    // A client that left, or a request the connection handling answered itself (a framing
    // error that failed the body), is no server error.
    if (!controller.signal.aborted && !isTakenOver(res)) report(config.onError, error);
    if (!res.destroyed) sendReply(res, errorReply('ERR_INTERNAL'));
    return;
  }
  await sendResponse(req, res, response, config, controller.signal);
}
