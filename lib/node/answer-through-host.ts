/**
 * A store's routes answered through a framework's own reply (Fastify's), so that its hooks run.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import type { Reply } from '../operation/plain-request.ts';
import type { StoreRoutes } from '../store/store-routes.ts';
import type { ListenerConfig } from './listener-config.ts';
import { NodeRequest } from './node-request.ts';
import { drainRequest, keepAliveOrClose } from './request-body.ts';
import { respond } from './respond.ts';
import type { FetchHandler } from '../types.ts';

/** A request with the framework's own object, id and body limit. */
export class HostedRequest extends NodeRequest {
  declare readonly bodyLimit: number | undefined;
  declare private readonly id: string | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    host: unknown,
    route: string | undefined,
    id: string | undefined,
    bodyLimit: number | undefined,
  ) {
    super(req, res, host, route);
    this.id = id;
    this.bodyLimit = bodyLimit;
  }

  override requestId(): string | undefined {
    return this.id;
  }
}

/** How a framework sends an answer: a plain reply, or a web `Response`. */
export interface HostSend {
  readonly reply: (reply: Reply) => void;
  readonly response: (response: Response) => void;
}

/** Answers a request on a store's plain route and hands the reply to the framework. */
export function answerPlain(
  routes: StoreRoutes,
  request: HostedRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  send: HostSend,
): void {
  if (refused(request, res, send)) return;
  routes.handle(request, (reply) => answerReply(req, res, config, reply, send));
}

/** Answers a request through a fetch handler and hands its `Response` to the framework. */
export function answerFetch(
  handler: FetchHandler,
  request: HostedRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  send: HostSend,
): void {
  if (refused(request, res, send)) return;
  // A rejection here is a bug to report, not to crash on.
  respond(handler, request, req, res, config, send.response).catch(config.onError);
}

/** Hands a plain reply to the framework, then drains an unread body or closes the connection. */
export function answerReply(
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  reply: Reply,
  send: HostSend,
): void {
  const drain = keepAliveOrClose(req, res, config, reply.status);
  send.reply(reply);
  if (drain) drainRequest(req, undefined, config);
}

/** Answers a request no handler may see (a bad Host, an unreadable framing) at once. */
function refused(request: NodeRequest, res: ServerResponse, send: HostSend): boolean {
  // Node reads nothing more on a connection after an upgrade request.
  if (request.upgrade) res.shouldKeepAlive = false;
  const problem = request.problem;
  if (problem === undefined) return false;
  // Where such a request's body ends may be unknown: the connection closes after the answer.
  res.shouldKeepAlive = false;
  send.reply(problem);
  return true;
}

// A mount path with parameters yields many mount paths; only so many handlers are kept.
const KEPT_MOUNT_PATHS = 64;

/**
 * A store's handler per mount path, made on first use. The path is read as a URL parser writes it,
 * as the store reads the request's; one with a dot segment, or that `make` throws on, has none.
 */
export function handlersUnder<Handler>(
  make: (prefix: string) => Handler,
): (mountPath: string) => Handler | undefined {
  const handlers = new Map<string, Handler>();
  return (mountPath) => {
    const prefix = writtenAsUrl(mountPath);
    if (prefix === undefined) return undefined;
    let handler = handlers.get(prefix);
    if (handler === undefined) {
      try {
        handler = make(prefix);
      } catch {
        return undefined;
      }
      if (handlers.size < KEPT_MOUNT_PATHS) handlers.set(prefix, handler);
    }
    return handler;
  };
}

function writtenAsUrl(path: string): string | undefined {
  if (path === '' || path === '/') return '';
  let written: string;
  try {
    written = new URL(`${path}/`, 'http://x').pathname.slice(0, -1);
  } catch {
    return undefined;
  }
  // A dot segment is resolved away: such a path is none the store serves.
  return written.split('/').length === path.split('/').length ? written : undefined;
}

export const NOT_FOUND = errorReply('ERR_NOT_FOUND');
