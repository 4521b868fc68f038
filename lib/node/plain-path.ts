/**
 * The fast path: a plant store's own routes answered on plain values, with no `Request`,
 * `Response` or `AbortController`: the headers the operation reads are picked from `rawHeaders`,
 * the body is read whole from the `IncomingMessage`, and the reply written as it is.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorReply } from '../errors.ts';
import type { ClientWatch } from '../operation/plain-request.ts';
import type { PlainHandler } from '../store/plain-handler.ts';
import { isValidHost } from './host.ts';
import { type ListenerConfig, lastResort } from './listener-config.ts';
import { handedOver, isTakenOver } from './connection.ts';
import { transferCodingProblem } from './framing.ts';
import { clientGone, drainRequest, keepAliveOrClose, readRequestBody } from './request-body.ts';
import { requestIdOf } from './request-id.ts';
import { sendReply } from './send.ts';

/** The path of an origin-form request target (`/plants?x=1` → `/plants`), else `undefined`. */
export function pathOf(target: string | undefined): string | undefined {
  if (target === undefined || target.charCodeAt(0) !== 47 /* '/' */) return undefined;
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/**
 * Answers a request a plant store handles on plain values: the same checks and replies as the
 * generic path (Host, then the store's contract), minus the `Request` and `Response` objects.
 */
export function answerPlain(
  plain: PlainHandler,
  req: IncomingMessage,
  res: ServerResponse,
  config: ListenerConfig,
): void {
  const raw = req.rawHeaders;
  let host: string | undefined;
  let hosts = 0;
  let authorization: string | null = null;
  let contentType: string | null = null;
  let contentLength: string | null = null;
  let origin: string | null = null;
  let preflightMethod: string | null = null;
  let transferEncoding: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // Hot path: switch on the length, then the usual spelling, so most headers cost no
    // lower-casing. Repeated headers are joined with ", ", as `Headers.get` does, so both paths
    // see the same values.
    switch (name.length) {
      case 4:
        if (name === 'Host' || name.toLowerCase() === 'host') {
          host = value;
          hosts++;
        }
        break;
      case 12:
        if (name === 'Content-Type' || name.toLowerCase() === 'content-type')
          contentType = joined(contentType, value);
        break;
      case 13:
        if (name === 'Authorization' || name.toLowerCase() === 'authorization')
          authorization = joined(authorization, value);
        break;
      case 14:
        if (name === 'Content-Length' || name.toLowerCase() === 'content-length')
          contentLength = joined(contentLength, value);
        break;
      case 6:
        // Accept and Cookie share the length: one char compare spares them the lower-casing.
        if (
          name === 'Origin' ||
          ((name.charCodeAt(0) | 32) === 111 && name.toLowerCase() === 'origin')
        )
          origin = joined(origin, value);
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding')
          transferEncoding = joined(transferEncoding, value);
        break;
      case 7:
        // Node reads nothing more on a connection after a request that asks for an upgrade: it
        // is answered, then closed, so no later request waits unanswered on it.
        if (name.toLowerCase() === 'upgrade') res.shouldKeepAlive = false;
        break;
      case 29:
        if (name.toLowerCase() === 'access-control-request-method')
          preflightMethod = joined(preflightMethod, value);
        break;
    }
  }
  if (hosts !== 1 || !isValidHost(host)) {
    res.shouldKeepAlive = false;
    sendReply(res, errorReply('ERR_BAD_REQUEST', 'the Host header is missing or not valid'));
    return;
  }
  // Framing the server cannot read is answered before anything reads the body, then closed.
  const framing = transferEncoding === null ? undefined : transferCodingProblem(transferEncoding);
  if (framing !== undefined) {
    res.shouldKeepAlive = false;
    sendReply(res, framing);
    return;
  }

  plain.handle(
    {
      method: req.method ?? 'GET',
      authorization,
      contentType,
      origin,
      preflightMethod,
      // Node's HTTP parser refuses a Content-Length that is not plain digits, or given twice.
      declaredLength: contentLength === null ? -1 : Number(contentLength),
      hasBody: transferEncoding !== null || contentLength !== null,
      // Methods, not arrow functions: tsx (esbuild's keepNames) names every arrow function
      // a property holds, one `Object.defineProperty` per request (bench/RESULTS.md).
      readBody(maxBytes, sink) {
        readRequestBody(req, res, maxBytes, sink);
      },
      client: new ConnectionWatch(res),
      requestId() {
        return requestIdOf(req);
      },
      path() {
        return pathOf(req.url);
      },
      header(name) {
        return headerOf(req, name);
      },
    },
    (reply) => {
      try {
        // A body the store did not read (a 401, say) is drained, so the connection serves on,
        // or the reply says the connection closes.
        const drain = keepAliveOrClose(req, res, config, reply.status);
        if (!res.destroyed) {
          sendReply(res, reply);
          handedOver(res);
        }
        if (drain) drainRequest(req, undefined, config);
      } catch (error) {
        lastResort(config, res, error);
      }
    },
  );
}

/** A header by its lower-case name, repeated ones joined as `Headers.get` joins them. */
function headerOf(req: IncomingMessage, name: string): string | null {
  const raw = req.rawHeaders;
  let value: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === name) value = joined(value, raw[i + 1] as string);
  }
  return value;
}

function joined(previous: string | null, value: string): string {
  return previous === null ? value : `${previous}, ${value}`;
}

/**
 * A `ClientWatch` on a response: the client is gone once the connection closed before the
 * response was sent. The response's `close` event is listened to only while someone (a
 * collaborator that read its signal) asks to hear about it.
 */
class ConnectionWatch implements ClientWatch {
  #reason: unknown;
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get aborted(): boolean {
    // A request the connection handling answered itself (a framing error) is over for the store.
    return this.#res.destroyed || isTakenOver(this.#res);
  }

  get reason(): unknown {
    this.#reason ??= clientGone();
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#res.once('close', listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#res.off('close', listener);
  }
}
