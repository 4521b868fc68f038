import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorReply, errorReply, JSON_HEADERS } from '../errors.ts';
import { cameToRest, isTakenOver } from './connection.ts';
import { http2Fields, isHttp2, isResponseGone } from './http2.ts';
import type { ListenerConfig } from './types.ts';
import { keepAliveOrClose } from './request-body.ts';
import { assignedRequestId } from './request-id.ts';

/**
 * Sends a handler's `Response`: headers once, the body with backpressure, none for HEAD. Never a
 * second response: when someone else answered, or the body fails late, the connection is cut.
 */
export async function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  config: ListenerConfig,
  signal: AbortSignal,
): Promise<void> {
  const body = response.body;
  const gone = isResponseGone(res);
  if (gone || res.headersSent) {
    // The client left, or someone else answered; a framing error's answer is kept.
    body?.cancel().catch(ignore);
    if (!gone && !isTakenOver(res)) res.destroy();
    return;
  }
  keepAliveOrClose(req, res, config, response.status);
  const http2 = isHttp2(req);
  // Iterating `Headers` yields each Set-Cookie on its own; the flat list keeps them separate.
  let headers: string[];
  if (http2) {
    headers = http2Fields(response.headers);
  } else {
    headers = [];
    for (const [name, value] of response.headers) headers.push(name, value);
  }
  const requestId = assignedRequestId(req);
  if (requestId !== undefined && !response.headers.has('x-request-id')) {
    headers.push('x-request-id', requestId);
  }
  try {
    // HTTP/2 has no status text: node warns when given one.
    if (response.statusText === '' || http2) res.writeHead(response.status, headers);
    else res.writeHead(response.status, response.statusText, headers);
  } catch (error) {
    // A header node rejects: nothing was sent yet, so this is still a clean 500.
    config.onError(error);
    body?.cancel().catch(ignore);
    sendReply(res, errorReply('ERR_INTERNAL'));
    return;
  }
  if (body === null || req.method === 'HEAD') {
    body?.cancel().catch(ignore);
    res.end();
    cameToRest(req);
    return;
  }

  const reader = body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(ignore);
  };
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || isResponseGone(res)) break;
      if (!res.write(value)) await drained(res);
    }
    if (!isResponseGone(res)) {
      res.end();
      cameToRest(req);
    }
  } catch (error) {
    // The headers are out: the only honest signal left is to cut the connection.
    if (!signal.aborted && !isResponseGone(res)) config.onError(error);
    res.destroy();
    reader.cancel().catch(ignore);
  } finally {
    res.off('close', cancel);
  }
}

/** Resolves on `'drain'`, or on `'close'` so a vanished client never leaves it hanging. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes a plain reply, unless a response was already started: then the connection is cut, or,
 * for a request the connection handling answered itself (a framing error), the reply is dropped.
 */
export function sendReply(res: ServerResponse, reply: ErrorReply): void {
  if (res.headersSent) {
    if (!isTakenOver(res)) res.destroy();
    return;
  }
  const length = String(Buffer.byteLength(reply.body));
  // The id goes in the same flat list: `setHeader` would make node merge the two at `writeHead`.
  const requestId = assignedRequestId(res.req);
  let head: string[];
  if (reply.headers === JSON_HEADERS) {
    const type = JSON_HEADERS['content-type'] as string;
    head =
      requestId === undefined
        ? ['content-type', type, 'content-length', length]
        : ['content-type', type, 'content-length', length, 'x-request-id', requestId];
  } else {
    head = [];
    for (const name in reply.headers) head.push(name, reply.headers[name] as string);
    // RFC 9110 section 8.6: never a Content-Length on a 204 (a CORS preflight's answer).
    if (reply.status !== 204) head.push('content-length', length);
    if (requestId !== undefined) head.push('x-request-id', requestId);
  }
  res.writeHead(reply.status, head);
  res.end(reply.body);
  cameToRest(res.req);
}

function ignore(): void {}
