/**
 * The adapter's one view of an `IncomingMessage`: its header lines scanned once, its Host and
 * framing checked once, its path taken once. A plant store's routes read it as it is (it is the
 * operation's `PlainRequest`); any other handler gets the native `Request` it builds.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorReply, errorReply } from '../errors.ts';
import type { BodySink, ClientWatch, PlainRequest } from '../operation/plain-request.ts';
import { pathOf } from '../store/url-path.ts';
import { isTakenOver } from './connection.ts';
import { transferCodingProblem } from './framing.ts';
import { ABSOLUTE_FORM, isValidHost } from './host.ts';
import { type BodyState, clientGone, readRequestBody, toBodyStream } from './request-body.ts';
import { assignedRequestId, requestIdOf } from './request-id.ts';

/** The path of a request target in origin form (`/plants?x=1` → `/plants`), else `undefined`. */
export function targetPath(target: string | undefined): string | undefined {
  return target?.charCodeAt(0) === 47 /* '/' */ ? pathOf(target) : undefined;
}

/**
 * A request as the adapter reads it. Only the headers some check or the operation reads are
 * kept; a native `Request` takes the rest from `rawHeaders` when a handler needs one.
 *
 * The fields are declared, not defined: the constructor sets each once, where a class field
 * definition would first set it to `undefined` on every request.
 */
export class NodeRequest implements PlainRequest {
  declare readonly method: string;
  declare readonly authorization: string | null;
  declare readonly contentType: string | null;
  declare readonly contentEncoding: string | null;
  declare readonly origin: string | null;
  declare readonly preflightMethod: string | null;
  declare readonly declaredLength: number;
  declare readonly hasBody: boolean;
  /** The path of the request target, `undefined` when the target is not in origin form. */
  declare readonly path: string | undefined;
  /** Whether the request asks for an upgrade. */
  declare readonly upgrade: boolean;
  /**
   * The answer to a request no handler may see, `undefined` for the rest: a missing, repeated
   * or malformed `Host` (`400`), or a `Transfer-Encoding` the server cannot read (`framing.ts`).
   */
  declare readonly problem: ErrorReply | undefined;
  declare private readonly req: IncomingMessage;
  declare private readonly res: ServerResponse;
  /** The one `Host` line, `undefined` when there is none or more than one. */
  declare private readonly host: string | undefined;
  declare private watch: ConnectionWatch | undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    const raw = req.rawHeaders;
    let host: string | undefined;
    let hosts = 0;
    let authorization: string | null = null;
    let contentType: string | null = null;
    let contentEncoding: string | null = null;
    let contentLength: string | null = null;
    let origin: string | null = null;
    let preflightMethod: string | null = null;
    let transferEncoding: string | null = null;
    let upgrade = false;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      const value = raw[i + 1] as string;
      // Switch on the length, then try the usual spelling, so most lines need no lower-casing.
      // Repeated lines are joined with ", ", as `Headers.get` joins them.
      switch (name.length) {
        case 4:
          if (name === 'Host' || name.toLowerCase() === 'host') {
            host = hosts === 0 ? value : undefined;
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
        case 16:
          if (name === 'Content-Encoding' || name.toLowerCase() === 'content-encoding')
            contentEncoding = joined(contentEncoding, value);
          break;
        case 17:
          if (name.toLowerCase() === 'transfer-encoding')
            transferEncoding = joined(transferEncoding, value);
          break;
        case 7:
          if (name.toLowerCase() === 'upgrade') upgrade = true;
          break;
        case 29:
          if (name.toLowerCase() === 'access-control-request-method')
            preflightMethod = joined(preflightMethod, value);
          break;
      }
    }
    this.req = req;
    this.res = res;
    this.host = host;
    this.watch = undefined;
    this.method = req.method ?? 'GET';
    this.authorization = authorization;
    this.contentType = contentType;
    this.contentEncoding = contentEncoding;
    this.origin = origin;
    this.preflightMethod = preflightMethod;
    // Node's HTTP parser refuses a Content-Length that is not plain digits, or given twice.
    this.declaredLength = contentLength === null ? -1 : Number(contentLength);
    this.hasBody = transferEncoding !== null || contentLength !== null;
    this.path = targetPath(req.url);
    this.upgrade = upgrade;
    this.problem = !isValidHost(host)
      ? errorReply('ERR_BAD_REQUEST', 'the Host header is missing or not valid')
      : transferEncoding === null
        ? undefined
        : transferCodingProblem(transferEncoding);
  }

  readBody(maxBytes: number, sink: BodySink): void {
    readRequestBody(this.req, this.res, maxBytes, sink);
  }

  get client(): ClientWatch {
    this.watch ??= new ConnectionWatch(this.res);
    return this.watch;
  }

  requestId(): string | undefined {
    return requestIdOf(this.req);
  }

  /** A header by its lower-case name, repeated lines joined; read only for the diagnostics channels. */
  header(name: string): string | null {
    const raw = this.req.rawHeaders;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      if ((raw[i] as string).toLowerCase() === name) value = joined(value, raw[i + 1] as string);
    }
    return value;
  }

  /**
   * The native `Request` for a handler that is no plant store's route: the URL from `Host` and
   * the target, every header line but HTTP/2 pseudo-headers, the body a lazy stream (none for
   * GET and HEAD, or when the headers announce none). A target or URL fetch cannot represent is
   * a `400` Error body.
   */
  toRequest(signal: AbortSignal, body: BodyState): Request | ErrorReply {
    const req = this.req;
    const target = req.url ?? '';
    let url: string;
    if (this.path !== undefined) {
      const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
      url = (encrypted ? 'https://' : 'http://') + (this.host as string) + target;
    } else if (ABSOLUTE_FORM.test(target)) {
      url = target;
    } else {
      return errorReply('ERR_BAD_REQUEST', 'the request target is not supported');
    }
    const headers = new Headers();
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      // HTTP/2 pseudo-headers (`:authority`, ...) are no header a Request can carry.
      if (name.charCodeAt(0) !== 58 /* ':' */) headers.append(name, raw[i + 1] as string);
    }
    // The id a server gave the request travels with it, in place of an unusable one the client sent.
    const requestId = assignedRequestId(req);
    if (requestId !== undefined) headers.set('x-request-id', requestId);

    const method = this.method;
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
    // A stream only when there is a body to read: GET and HEAD never have one for fetch.
    if (this.hasBody && this.declaredLength !== 0 && method !== 'GET' && method !== 'HEAD') {
      init.body = toBodyStream(req, body);
      // Required by fetch for a stream body: https://fetch.spec.whatwg.org/#dom-requestinit-duplex
      init.duplex = 'half';
    }
    try {
      return new Request(url, init);
    } catch {
      // A URL fetch cannot represent (a bad port, say).
      return errorReply('ERR_BAD_REQUEST');
    }
  }
}

function joined(previous: string | null, value: string): string {
  return previous === null ? value : `${previous}, ${value}`;
}

/**
 * A `ClientWatch` on a response: the client is gone once the connection closed before the
 * response was sent. The response's `close` event is listened to only when someone (a
 * collaborator that read its signal) asks to hear about it; it also comes once the response is
 * sent.
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
}
