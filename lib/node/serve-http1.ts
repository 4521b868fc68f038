/**
 * `serve`'s HTTP/1.1 server: node's, with each connection's state (`connection.ts`), parser errors
 * answered with the Error body (`client-error.ts`) and a CONNECT routed rather than dropped.
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorReply } from '../errors.ts';
import { routesOf } from '../store/store-routes.ts';
import type { FetchHandler } from '../types.ts';
import { rejectClient, writeRawReply } from './client-error.ts';
import { type Connection, connectionOf, Connections, holdContinue } from './connection.ts';
import { targetPath } from './node-request.ts';
import { type Observer, observeRawReply, observeRequest } from './observe.ts';
import type { NodeListener, ProtocolServer, ServerLimits } from './types.ts';

/** An HTTP/1.1 server, each connection with its state (`connection.ts`). */
export function http1Server(
  handler: FetchHandler,
  listener: NodeListener,
  limits: ServerLimits,
  observer: Observer | undefined,
): ProtocolServer<Server> {
  let closing = false;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const connection = connectionOf(req.socket) as Connection;
    // Bytes after a request that said Connection: close are ignored, never executed.
    if (connection.closing) {
      req.socket.destroy();
      return;
    }
    connection.response = res;
    if (observer !== undefined) observeRequest(observer, req, res);
    // Not `setHeader('connection', 'close')`: with headers already set, node's `writeHead`
    // drops repeated Set-Cookie values from the flat header list.
    if (closing) res.shouldKeepAlive = false;
    listener(req, res);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      maxHeaderSize: limits.maxHeaderSize,
      connectionsCheckingInterval: limits.connectionsCheckingInterval,
      // Node would answer a missing Host with a bare 400; the listener answers with the Error body.
      requireHostHeader: false,
    },
    onRequest,
  );
  // A second Host or Authorization after filler lines must be seen; maxHeaderSize bounds them.
  server.maxHeadersCount = 0;
  // `100 Continue` waits until the body is read, so a request the headers alone fail gets its
  // final status instead (RFC 9110 section 10.1.1).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    holdContinue(res);
    onRequest(req, res);
  });
  // Node would answer another Expect with a bare 417; RFC 9110 lets a server ignore it.
  server.on('checkExpectation', onRequest);
  // Node closes a CONNECT's socket unanswered when nobody listens: route it, then close.
  const plain = routesOf(handler);
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const reply =
      plain?.rejectMethod(targetPath(req.url)) ??
      errorReply('ERR_NOT_IMPLEMENTED', 'the method CONNECT is not implemented');
    writeRawReply(
      socket,
      observer === undefined ? reply : observeRawReply(observer, reply, 'CONNECT', req.url),
    );
  });
  server.keepAliveTimeout = limits.keepAliveTimeout;
  const connections = new Connections(server, limits.maxConnections, limits.onRefused);
  // A client that half-closes after its request still gets the response (node reads this
  // undocumented server property when a client's end arrives).
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    rejectClient(error, socket, observer && ((reply) => observeRawReply(observer, reply)));
  });
  return {
    server,
    endKeepAlive() {
      closing = true;
      connections.endKeepAlive();
    },
    closeIdle: () => server.closeIdleConnections(),
    closeAll: () => server.closeAllConnections(),
  };
}
