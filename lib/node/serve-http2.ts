/**
 * `serve({ http2: true })`: HTTP/2 without TLS (h2c with prior knowledge), as a load balancer or
 * a platform speaks it to its backends. A session multiplexes its requests, so HTTP/1.1's state
 * per connection has no place here: a closing server sends each session GOAWAY, which lets its
 * streams in flight finish and sends the client's next request to a new connection.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  constants,
  createServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { errorReply } from '../errors.ts';
import { holdContinue } from './connection.ts';
import { closeStreamAfterResponse } from './http2.ts';
import { type Observer, observeRequest } from './observe.ts';
import { sendReply } from './send.ts';
import type { NodeListener, ProtocolServer, ServerLimits } from './types.ts';

export function http2Server(
  listener: NodeListener,
  limits: ServerLimits,
  observer: Observer | undefined,
): ProtocolServer<Http2Server> {
  const sessions = new Set<Http2Session>();
  let closing = false;
  const onRequest = (req: Http2ServerRequest, res: Http2ServerResponse): void => {
    const { stream } = req;
    // A session that began while the server was closing serves the request it came with.
    if (closing) stream.session?.close();
    if (!stream.endAfterHeaders) resetIfIncomplete(stream, limits.requestTimeout);
    if (observer !== undefined) {
      observeRequest(observer, req as unknown as IncomingMessage, res as unknown as ServerResponse);
    }
    // nghttp2 does not hold a peer to the header list size it announced.
    if (headSize(req.rawHeaders) > limits.maxHeaderSize) {
      sendReply(res as unknown as ServerResponse, errorReply('ERR_HEADERS_TOO_LARGE'));
      closeStreamAfterResponse(res as unknown as ServerResponse, limits.drainTimeout);
      return;
    }
    listener(req, res);
  };
  const server = createServer({ settings: { maxHeaderListSize: limits.maxHeaderSize } }, onRequest);
  server.on('checkContinue', (req: Http2ServerRequest, res: Http2ServerResponse) => {
    holdContinue(res as unknown as ServerResponse);
    onRequest(req, res);
  });
  // node answers CONNECT with a bare 405 unless someone listens: it is routed as any method.
  server.on('connect', onRequest);
  // Past the cap node drops a connection before it makes a socket: sessions multiplex, so an
  // idle one is not closed to make room as an idle HTTP/1.1 connection is.
  server.maxConnections = limits.maxConnections;
  server.on('drop', limits.onRefused);
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // A session with no frame in either direction for `keepAliveTimeout` is closed, gracefully.
  server.setTimeout(limits.keepAliveTimeout);
  server.on('timeout', (session: Http2Session) => session.close());
  const closeEach = (): void => {
    for (const session of sessions) session.close();
  };
  return {
    server,
    endKeepAlive() {
      closing = true;
      closeEach();
    },
    closeIdle: closeEach,
    closeAll() {
      for (const session of sessions) session.destroy();
    },
  };
}

/** A request head's size as HTTP/1.1 would spell it: `name: value` and a line end per field. */
function headSize(rawHeaders: readonly string[]): number {
  let size = 0;
  for (const text of rawHeaders) size += text.length + 2;
  return size;
}

/** Resets `stream` if its request has not arrived whole within `timeout` ms. */
function resetIfIncomplete(stream: ServerHttp2Stream, timeout: number): void {
  const timer = setTimeout(() => {
    if (!stream.closed && stream.state.remoteClose !== 1) stream.close(constants.NGHTTP2_CANCEL);
  }, timeout);
  timer.unref();
  stream.once('close', () => clearTimeout(timer));
}
