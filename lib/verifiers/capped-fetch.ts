import { readBodyStream } from '../store/read-body.ts';

/** jose's JWKS `fetch`, reading a `200`'s body up to `maxBytes`: a key server may never end it. */
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
