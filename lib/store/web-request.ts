/**
 * The web-standard front: a `Request` as the plain values the create operation reads. Used by
 * `handleCreatePlant` and `fetch` on every runtime (Deno, Bun, workers, Node hosts that hand
 * over a `Request`).
 *
 * @module
 */

import type { BodySink, ClientWatch, PlainRequest } from '../operation/plain-request.ts';
import type { RequestHead } from '../types.ts';
import { bodyAlreadyRead, readBodyStream, readDeclaredBody } from './read-body.ts';
import { pathOf } from './url-path.ts';

/** A usable `Content-Length` is plain digits; absent, or anything else, declares nothing. */
const DECIMAL = /^\d+$/;

/**
 * The plain values of a web-standard request: its method, the headers the operation reads, its
 * body (read only when the operation asks) and its signal as the client's presence.
 *
 * What a create does not need is not touched, since on Bun and Deno `request.signal`,
 * `request.body` and `request.bodyUsed` are made on first read: a declared body is read with no
 * look at the stream, and the signal only when the operation asks about the client.
 */
export class WebPlainRequest implements PlainRequest {
  readonly method: string;
  readonly authorization: string | null;
  readonly contentType: string | null;
  readonly contentEncoding: string | null;
  readonly origin: string | null;
  readonly preflightMethod: string | null;
  readonly declaredLength: number;
  readonly hasBody: boolean;
  readonly host: unknown;
  readonly route: string | undefined;
  readonly #request: Request;
  #watch: SignalWatch | undefined;
  #head: RequestHead | undefined;

  /**
   * @param request The request, as the host received it.
   * @param cors Whether the store has CORS on: only then are `Origin` and
   *   `Access-Control-Request-Method` read.
   * @param host What the host passed beside the request, for the collaborators.
   * @param route The route the request matched, for telemetry.
   */
  constructor(request: Request, cors: boolean, host: unknown, route: string | undefined) {
    const { headers } = request;
    const contentLength = headers.get('content-length') ?? '';
    this.#request = request;
    this.host = host;
    this.route = route;
    this.method = request.method;
    this.authorization = headers.get('authorization');
    this.contentType = headers.get('content-type');
    this.contentEncoding = headers.get('content-encoding');
    this.origin = cors ? headers.get('origin') : null;
    this.preflightMethod = cors ? headers.get('access-control-request-method') : null;
    this.declaredLength = DECIMAL.test(contentLength) ? Number(contentLength) : -1;
    // A declared length means a body; without one, the request says whether it has a stream.
    this.hasBody = this.declaredLength >= 0 || request.body !== null;
  }

  // The operation asks for the body only when hasBody is true, and the declared length is within
  // the limit by then.
  readBody(maxBytes: number, sink: BodySink): void {
    const request = this.#request;
    if (this.declaredLength >= 0) {
      readDeclaredBody(request, this.declaredLength, sink);
      return;
    }
    const stream = request.body as ReadableStream<Uint8Array>;
    // A host's body parser or validator got there first: say so now, not at the deadline.
    if (request.bodyUsed || stream.locked) sink.fail(bodyAlreadyRead());
    else void readBodyStream(stream, maxBytes, sink);
  }

  // The operation asks about the client only when that can change what happens.
  get client(): ClientWatch {
    this.#watch ??= new SignalWatch(this.#request.signal);
    return this.#watch;
  }

  /** The create is over: what it listened to on the request's signal is removed. */
  release(): void {
    this.#watch?.release();
  }

  requestId(): string | undefined {
    return this.#request.headers.get('x-request-id') ?? undefined;
  }

  // Read only for the diagnostics channels, so made only then.
  get path(): string | undefined {
    return pathOf(this.#request.url);
  }

  header(name: string): string | null {
    return this.#request.headers.get(name);
  }

  // The request itself would let a collaborator read the body the store must read.
  head(): RequestHead {
    const { method, url, headers } = this.#request;
    this.#head ??= { method, url, headers };
    return this.#head;
  }
}

/**
 * The client as a web `Request`'s signal tells it. The listener the create adds is removed when
 * the create is over: a runtime may hand back the very signal given to `new Request` (Bun does),
 * which a host may share between requests.
 */
class SignalWatch implements ClientWatch {
  #listener: (() => void) | undefined;
  readonly #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  get aborted(): boolean {
    return this.#signal.aborted;
  }

  get reason(): unknown {
    return this.#signal.reason;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listener = listener;
    this.#signal.addEventListener('abort', listener);
  }

  release(): void {
    if (this.#listener !== undefined) this.#signal.removeEventListener('abort', this.#listener);
  }
}
