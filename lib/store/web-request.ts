import type { BodySink, ClientWatch, PlainRequest } from '../operation/plain-request.ts';
import type { RequestHead } from '../types.ts';
import { bodyAlreadyRead, readBodyStream, readDeclaredBody } from './read-body.ts';
import { pathOf } from './url-path.ts';

// Anything but plain digits declares no length.
const DECIMAL = /^\d+$/;

/**
 * A web-standard `Request` as the operation's plain values. Its signal, body and `bodyUsed` are
 * read only when needed, since some runtimes make them on first read.
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
  #head: RequestHead | undefined;

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

  // Called only when hasBody, with a declared length already within the limit.
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

  get client(): ClientWatch {
    return this.#request.signal;
  }

  requestId(): string | undefined {
    return this.#request.headers.get('x-request-id') ?? undefined;
  }

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
