/**
 * A plant store's routes answered inside a framework that sends answers itself (Fastify's
 * `reply`), so that the host's hooks see them: the request is read once, as `toNodeListener`
 * reads it, and each answer is handed to the framework with the adapter's rules for a body left
 * unread. Also the store's handlers per mount path, for hosts whose mount path has parameters.
 *
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

/** A request as a framework has it: its own object, id and body limit beside node's request. */
export class HostedRequest extends NodeRequest {
  declare readonly bodyLimit: number | undefined;
  declare private readonly id: string | undefined;

  /**
   * @param host The framework's request: `context.host` for collaborators and `onError`.
   * @param route The route template, for telemetry.
   * @param id The framework's id for the request, the one the store reports.
   * @param bodyLimit The framework's body limit for the route.
   */
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

/**
 * Answers a request on a store's plain route and hands the reply to the framework; a request no
 * handler may see (a bad Host, a transfer coding the server cannot read) gets its `400` at once.
 */
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
  // `respond` answers every failure it can; a rejection is a bug to report, not to crash on.
  respond(handler, request, req, res, config, send.response).catch(config.onError);
}

/**
 * Hands a plain reply to the framework: a request body still unread is drained after it, or the
 * response says the connection closes (a `413`'s body is never read).
 */
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

function refused(request: NodeRequest, res: ServerResponse, send: HostSend): boolean {
  // Node reads nothing more on a connection after a request that asks for an upgrade.
  if (request.upgrade) res.shouldKeepAlive = false;
  const problem = request.problem;
  if (problem === undefined) return false;
  // The server may not know where such a request's body ends: the connection closes after it.
  res.shouldKeepAlive = false;
  send.reply(problem);
  return true;
}

// A host mounts a store under a path with parameters, so it sees many mount paths; a few are kept.
const KEPT_MOUNT_PATHS = 64;

/**
 * A store's handler per mount path, made by `make` on first use and kept for a bounded number of
 * paths. A mount path is taken as a URL parser writes it (`"` as `%22`), as the store reads the
 * request's path; one that is no URL path then (a dot segment, or one `make` refuses) has none.
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

/** A mount path as a URL parser writes it, or `undefined` when the parser drops a segment of it. */
function writtenAsUrl(path: string): string | undefined {
  if (path === '' || path === '/') return '';
  let written: string;
  try {
    written = new URL(`${path}/`, 'http://x').pathname.slice(0, -1);
  } catch {
    return undefined;
  }
  // A parser resolves dot segments away: a path that loses one so is none the store serves.
  return written.split('/').length === path.split('/').length ? written : undefined;
}

/** The answer to a request under a mount path the store cannot serve. */
export const NOT_FOUND = errorReply('ERR_NOT_FOUND');
