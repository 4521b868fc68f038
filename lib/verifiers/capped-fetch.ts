/**
 * A `fetch` that reads no more of an answer than a cap: for jose's JWKS fetch, since a key
 * server's answer is not trusted to end.
 *
 * @module
 */

import { readBodyStream } from '../store/read-body.ts';

/**
 * `fetch`, reading a `200`'s body up to `maxBytes` and cancelling it there; past it, the fetch
 * fails.
 */
export function cappedFetch(maxBytes: number): typeof fetch {
  const tooLarge = () =>
    new Error(`the JWKS response is larger than ${maxBytes} bytes (maxJwksBytes)`);
  return async (url, init) => {
    const response = await fetch(url, init);
    const { body } = response;
    if (response.status !== 200 || body === null) return response;
    if (Number(response.headers.get('content-length')) > maxBytes) {
      body.cancel().catch(() => {});
      throw tooLarge();
    }
    const bytes = await new Promise<Uint8Array | string>((resolve, reject) => {
      void readBodyStream(body, maxBytes, { take: resolve, fail: reject });
    });
    if (bytes === 'ERR_BODY_TOO_LARGE') throw tooLarge();
    return new Response(typeof bytes === 'string' ? null : (bytes as BodyInit), response);
  };
}
