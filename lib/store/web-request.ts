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
 * What a create does not need is not touched: on Bun and Deno, reading `request.signal`,
 * `request.body` or `request.bodyUsed` costs a server more than the rest of a create
 * (`npm run bench:runtimes`; bench/RESULTS.md). So a declared body is read with no look at the
 * stream, and the signal only when the operation asks about the client.
 *
 * @param request The request, as the host received it.
 * @param cors Whether the store has CORS on: only then are `Origin` and
 *   `Access-Control-Request-Method` read.
 * @returns What the create operation reads.
 */
export function plainRequestOf(request: Request, cors: boolean): PlainRequest {
  const { headers } = request;
  const contentLength = headers.get('content-length') ?? '';
  const declaredLength = DECIMAL.test(contentLength) ? Number(contentLength) : -1;
  return {
    method: request.method,
    authorization: headers.get('authorization'),
    contentType: headers.get('content-type'),
    origin: cors ? headers.get('origin') : null,
    preflightMethod: cors ? headers.get('access-control-request-method') : null,
    declaredLength,
    // A declared length means a body; without one, the request says whether it has a stream.
    hasBody: declaredLength >= 0 || request.body !== null,
    // The operation asks for the body only when hasBody is true, and the declared length is
    // within the limit by then.
    readBody(maxBytes, sink) {
      if (declaredLength >= 0) {
        readDeclaredBody(request, declaredLength, sink);
        return;
      }
      const stream = request.body as ReadableStream<Uint8Array>;
      // A host's body parser or validator got there first: say so now, not at the deadline.
      if (request.bodyUsed || stream.locked) sink.fail(bodyAlreadyRead());
      else void readBodyStream(stream, maxBytes, sink);
    },
    // A getter: the operation asks about the client only when that can change what happens.
    get client() {
      return request.signal;
    },
    requestId: () => headers.get('x-request-id') ?? undefined,
  };
}
