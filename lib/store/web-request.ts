/**
 * The web-standard front: a `Request` as the plain values the create operation reads. Used by
 * `handleCreatePlant` and `fetch` on every runtime (Deno, Bun, workers, Node hosts that hand
 * over a `Request`).
 *
 * @module
 */

import type { PlainRequest } from '../operation/plain-request.ts';
import { bodyAlreadyRead, readBodyStream, readDeclaredBody } from '../operation/read-body.ts';

/** A usable `Content-Length` is plain digits; absent, or anything else, declares nothing. */
const DECIMAL = /^\d+$/;

/**
 * The plain values of a web-standard request: its method, the headers the operation reads, its
 * body (read only when the operation asks) and its signal as the client's presence.
 *
 * @param request The request, as the host received it.
 * @param cors Whether the store has CORS on: only then are `Origin` and
 *   `Access-Control-Request-Method` read.
 * @returns What the create operation reads.
 */
export function plainRequestOf(request: Request, cors: boolean): PlainRequest {
  const { headers, body, signal } = request;
  const contentLength = headers.get('content-length') ?? '';
  const declaredLength = DECIMAL.test(contentLength) ? Number(contentLength) : -1;
  return {
    method: request.method,
    authorization: headers.get('authorization'),
    contentType: headers.get('content-type'),
    origin: cors ? headers.get('origin') : null,
    preflightMethod: cors ? headers.get('access-control-request-method') : null,
    declaredLength,
    hasBody: body !== null,
    // The operation asks for the body only when hasBody is true, and the declared length is
    // within the limit by then.
    readBody(maxBytes, sink) {
      const stream = body as ReadableStream<Uint8Array>;
      // A host's body parser or validator got there first: say so now, not at the deadline.
      if (request.bodyUsed || stream.locked) sink.fail(bodyAlreadyRead());
      else if (declaredLength >= 0) readDeclaredBody(request, declaredLength, sink);
      else void readBodyStream(stream, maxBytes, sink);
    },
    client: signal,
    requestId: () => headers.get('x-request-id') ?? undefined,
  };
}
