/**
 * The one answer sequence of every Node front: `toNodeListener` writes its answers to node's
 * response, the Fastify plugin hands them to Fastify's reply so that its hooks run.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import type { Reply } from '../operation/plain-request.ts';
import type { StoreRoutes } from '../store/store-routes.ts';
import type { FetchHandler } from '../types.ts';
import { isResponseGone } from './http2.ts';
import { NodeRequest } from './node-request.ts';
import { drainRequest, keepAliveOrClose } from './request-body.ts';
import { respond } from './respond.ts';
import { sendReply } from './send.ts';
import type { ListenerConfig } from './types.ts';

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

/**
 * Answers a request with a store route's `handle`; without `send` the reply is written to `res`.
 * A throw that escapes is the last resort's: reported, and the connection cut.
 */
export function answerPlain(
  handle: StoreRoutes['handle'],
  request: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  send?: HostSend,
): void {
  if (refused(request, req, res, config, send)) return;
  try {
    handle(request, (reply) => answerReply(req, res, config, reply, send));
  } catch (error) {
    lastResort(config, res, error);
  }
}

/** Answers a request through a fetch handler; without `send` its `Response` is written to `res`. */
export function answerFetch(
  handler: FetchHandler,
  request: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  send?: HostSend,
): void {
  if (refused(request, req, res, config, send)) return;
  // `respond` catches what it can; this is the last guard against an unhandled rejection.
  respond(handler, request, req, res, config, send?.response).catch((error: unknown) =>
    lastResort(config, res, error),
  );
}

/** Sends a plain reply, then drains an unread request body or closes the connection. */
export function answerReply(
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  reply: Reply,
  send?: HostSend,
): void {
  try {
    const drain = keepAliveOrClose(req, res, config, reply.status);
    if (send !== undefined) send.reply(reply);
    else if (!isResponseGone(res)) sendReply(res, reply);
    if (drain) drainRequest(req, undefined, config);
  } catch (error) {
    lastResort(config, res, error);
  }
}

/** For a failure nothing else caught: report it and cut the connection. */
function lastResort(config: ListenerConfig, res: ServerResponse, error: unknown): void {
  config.onError(error);
  res.destroy();
}

/** Answers a request no handler may see (a bad Host, an unreadable framing) at once. */
function refused(
  request: NodeRequest,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
  send: HostSend | undefined,
): boolean {
  // Node reads nothing more on a connection after an upgrade request.
  if (request.upgrade) res.shouldKeepAlive = false;
  const problem = request.problem;
  if (problem === undefined) return false;
  // Where such a request's body ends may be unknown: the connection closes after the answer.
  res.shouldKeepAlive = false;
  answerReply(req, res, config, problem, send);
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
