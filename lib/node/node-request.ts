/**
 * The adapter's one read of an `IncomingMessage`: a store's routes take it as their `PlainRequest`,
 * any other handler gets the native `Request` it builds. Past 300 lines, still one job: the checks
 * of a request's head (its Host, its framing, HTTP/2's authority) sit beside the one read of it.
 * @module
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorReply, errorReply } from '../errors.ts';
import type { BodySink, ClientWatch, PlainRequest } from '../operation/plain-request.ts';
import type { RequestHead } from '../types.ts';
import { pathOf } from '../store/url-path.ts';
import type { Http2ServerRequest } from 'node:http2';
import { isTakenOver } from './connection.ts';
import { isHttp2, isResponseGone } from './http2.ts';
import { type BodyState, clientGone, readRequestBody, toBodyStream } from './request-body.ts';
import { assignedRequestId, requestIdOf } from './request-id.ts';

/** The path of a request target in origin form (`/plants?x=1` → `/plants`), else `undefined`. */
export function targetPath(target: string | undefined): string | undefined {
  return target?.charCodeAt(0) === 47 /* '/' */ ? pathOf(target) : undefined;
}

/** A request as the adapter reads it: only the headers a check or the operation reads. */
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
  declare readonly upgrade: boolean;
  /** The answer to a request no handler may see: a bad `Host` or an unreadable framing. */
  declare readonly problem: ErrorReply | undefined;
  declare private readonly req: IncomingMessage;
  declare private readonly res: ServerResponse;
  /** The one `Host` line, or HTTP/2's authority; `undefined` when there is none or more. */
  declare private readonly authority: string | undefined;
  declare private watch: ConnectionWatch | undefined;
  declare private head_: RequestHead | undefined;
  /** A framework's request, else node's own. */
  declare readonly host: unknown;
  declare readonly route: string | undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    host: unknown = req,
    route: string | undefined = undefined,
  ) {
    const raw = req.rawHeaders;
    let authority: string | undefined;
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
            authority = hosts === 0 ? value : undefined;
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
    this.watch = undefined;
    this.head_ = undefined;
    this.host = host;
    this.route = route;
    this.method = req.method ?? 'GET';
    this.authorization = authorization;
    this.contentType = contentType;
    this.contentEncoding = contentEncoding;
    this.origin = origin;
    this.preflightMethod = preflightMethod;
    // Node's parsers reject a Content-Length that is not plain digits, or repeated.
    this.declaredLength = contentLength === null ? -1 : Number(contentLength);
    this.path = targetPath(req.url);
    this.upgrade = upgrade;
    if (isHttp2(req)) {
      const head = readHttp2Head(req, authority, hosts);
      this.authority = head.host;
      this.hasBody = head.hasBody;
      this.problem = head.problem;
      return;
    }
    this.authority = authority;
    this.hasBody = transferEncoding !== null || contentLength !== null;
    this.problem = !isValidHost(authority)
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

  /** A header by its lower-case name, repeated lines joined (for the diagnostics channels). */
  header(name: string): string | null {
    const raw = this.req.rawHeaders;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      if ((raw[i] as string).toLowerCase() === name) value = joined(value, raw[i + 1] as string);
    }
    return value;
  }

  head(): RequestHead {
    this.head_ ??= {
      method: this.method,
      url: this.url() ?? this.req.url ?? '',
      headers: this.headers(),
    };
    return this.head_;
  }

  /** The URL from `Host` and the target; `undefined` for a target fetch cannot take. */
  private url(): string | undefined {
    const req = this.req;
    const target = req.url ?? '';
    if (this.path === undefined) return ABSOLUTE_FORM.test(target) ? target : undefined;
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    return (encrypted ? 'https://' : 'http://') + (this.authority as string) + target;
  }

  /** Every header line but HTTP/2 pseudo-headers; on HTTP/2 the authority goes in `Host`. */
  private headers(): Headers {
    const headers = new Headers();
    const raw = this.req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      if (name.charCodeAt(0) !== 58 /* ':' */) headers.append(name, raw[i + 1] as string);
    }
    if (isHttp2(this.req) && !headers.has('host')) headers.set('host', this.authority as string);
    return headers;
  }

  /** The native `Request` for a handler that is no store's; a `400` if fetch cannot take it. */
  toRequest(signal: AbortSignal, body: BodyState): Request | ErrorReply {
    const url = this.url();
    if (url === undefined)
      return errorReply('ERR_BAD_REQUEST', 'the request target is not supported');
    const headers = this.headers();
    // The id `serve` gave the request replaces an unusable one the client sent.
    const requestId = assignedRequestId(this.req);
    if (requestId !== undefined) headers.set('x-request-id', requestId);

    const method = this.method;
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
    // fetch takes no body for GET and HEAD.
    if (this.hasBody && this.declaredLength !== 0 && method !== 'GET' && method !== 'HEAD') {
      init.body = toBodyStream(this.req, body);
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

/** The client is gone once the connection closed before the response was sent. */
class ConnectionWatch implements ClientWatch {
  #reason: unknown;
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get aborted(): boolean {
    // A request the connection handling answered itself (a framing error) is over for the store.
    return isResponseGone(this.#res) || isTakenOver(this.#res);
  }

  get reason(): unknown {
    this.#reason ??= clientGone();
    return this.#reason;
  }

  addEventListener(_type: 'abort', listener: { handleEvent(): void }): void {
    this.#res.once('close', () => listener.handleEvent());
  }

  // The listener goes with the response, one per request: nothing to remove.
  removeEventListener(): void {}
}

/**
 * The Host syntax (RFC 9110 section 7.2), checked before it goes into a URL: a `/`, `?`, `#` or
 * `@` in it would change the path the handler routes on.
 */
const HOST_PATTERN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::[0-9]{0,5})?$/;

let lastValidHost: string | undefined;

/** Whether a Host value has valid syntax; the last valid one is remembered, as most repeat it. */
function isValidHost(host: string | undefined): host is string {
  if (host === undefined) return false;
  if (host === lastValidHost) return true;
  if (!HOST_PATTERN.test(host)) return false;
  lastValidHost = host;
  return true;
}

/** An absolute-form request target (RFC 9112 section 3.2.2), as a proxy client sends it. */
const ABSOLUTE_FORM = /^https?:\/\//i;

/**
 * The answer to a `Transfer-Encoding` (its lines joined) the server cannot read (RFC 9112 section
 * 6.1): only `chunked`, once and last, is read; another last coding is a `400`, one before a `501`.
 */
function transferCodingProblem(value: string): ErrorReply | undefined {
  // The usual value, without a split.
  if (value === 'chunked') return undefined;
  const codings = value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  const last = codings.pop();
  if (last !== 'chunked' || codings.includes('chunked')) {
    return errorReply(
      'ERR_BAD_REQUEST',
      'the Transfer-Encoding must end in chunked, applied once (RFC 9112 section 6.3)',
    );
  }
  if (codings.length > 0) {
    return errorReply(
      'ERR_NOT_IMPLEMENTED',
      `transfer coding not implemented: ${codings.join(', ')} (only chunked is)`,
    );
  }
  return undefined;
}

interface Http2Head {
  /** The request's authority, `undefined` when `problem` says why there is none. */
  readonly host: string | undefined;
  /** False when the HEADERS frame ended the stream: no body follows, whatever the headers say. */
  readonly hasBody: boolean;
  /** A `400` for a missing, malformed or contradicted authority, else `undefined`. */
  readonly problem: ErrorReply | undefined;
}

/**
 * Reads an HTTP/2 request's authority and whether a body follows. More than one Host line, or one
 * that names another authority than `:authority`, makes the request malformed (section 8.3.1).
 */
function readHttp2Head(req: IncomingMessage, host: string | undefined, hosts: number): Http2Head {
  const { stream, headers, scheme } = req as unknown as Http2ServerRequest;
  const hasBody = !stream.endAfterHeaders;
  const authority = headers[':authority'];
  if (hosts > 1 || !isValidHost(authority ?? host)) {
    return { host: undefined, hasBody, problem: errorReply('ERR_BAD_REQUEST', NO_AUTHORITY) };
  }
  if (authority !== undefined && host !== undefined && !sameAuthority(authority, host, scheme)) {
    return { host: undefined, hasBody, problem: errorReply('ERR_BAD_REQUEST', TWO_AUTHORITIES) };
  }
  return { host: authority ?? host, hasBody, problem: undefined };
}

const NO_AUTHORITY = 'the :authority (or Host) is missing or not valid';
const TWO_AUTHORITIES = 'the Host header names another authority than :authority';

/** Whether two authorities match after RFC 3986 section 6.2.3's scheme-based normalisation. */
function sameAuthority(a: string, b: string, scheme: string): boolean {
  return normalised(a, scheme) === normalised(b, scheme);
}

function normalised(authority: string, scheme: string): string {
  let value = authority.toLowerCase();
  if (value.endsWith(':')) value = value.slice(0, -1);
  const defaultPort = scheme === 'https' ? ':443' : scheme === 'http' ? ':80' : undefined;
  if (defaultPort !== undefined && value.endsWith(defaultPort)) {
    value = value.slice(0, -defaultPort.length);
  }
  return value;
}
