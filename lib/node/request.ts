/**
 * The generic path's request: a native `Request` built from an `IncomingMessage`, its URL from
 * the `Host` header and the request target, its headers from `rawHeaders`, its body a lazy
 * stream (`request-body.ts`).
 *
 * @module
 */

import type { IncomingMessage } from 'node:http';
import { type ErrorReply, errorReply } from '../errors.ts';
import { transferCodingProblem } from './framing.ts';
import { ABSOLUTE_FORM, isValidHost } from './host.ts';
import { type BodyState, toBodyStream } from './request-body.ts';
import { assignedRequestId } from './request-id.ts';

/** Builds the native `Request`, or the answer to a request that cannot be one. */
export function toRequest(
  req: IncomingMessage,
  signal: AbortSignal,
  body: BodyState,
): Request | ErrorReply {
  const raw = req.rawHeaders;
  const headers = new Headers();
  let host: string | undefined;
  let hosts = 0;
  let announcesBody = false;
  let transferEncoding: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    // Skip HTTP/2 pseudo-headers (`:authority`, ...): hot path, a single char compare.
    if (name.charCodeAt(0) === 58) continue;
    // Length checks first, so most headers cost no lower-casing.
    if (name.length === 4 && name.toLowerCase() === 'host') {
      host = value;
      hosts++;
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      announcesBody = true;
      transferEncoding = transferEncoding === null ? value : `${transferEncoding}, ${value}`;
    } else if (name.length === 14 && name.toLowerCase() === 'content-length' && value !== '0') {
      announcesBody = true;
    }
    headers.append(name, value);
  }
  if (hosts !== 1 || !isValidHost(host)) {
    return errorReply('ERR_BAD_REQUEST', 'the Host header is missing or not valid');
  }
  const framing = transferEncoding === null ? undefined : transferCodingProblem(transferEncoding);
  if (framing !== undefined) return framing;

  const target = req.url ?? '';
  let url: string;
  if (target.charCodeAt(0) === 47 /* '/' */) {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    url = (encrypted ? 'https://' : 'http://') + host + target;
  } else if (ABSOLUTE_FORM.test(target)) {
    url = target;
  } else {
    return errorReply('ERR_BAD_REQUEST', 'the request target is not supported');
  }

  // The id a server gave the request travels with it, in place of an unusable one the client sent.
  const requestId = assignedRequestId(req);
  if (requestId !== undefined) headers.set('x-request-id', requestId);

  const method = req.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  // Only build a stream when there is a body to read: GET and HEAD never have one for fetch.
  if (announcesBody && method !== 'GET' && method !== 'HEAD') {
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
