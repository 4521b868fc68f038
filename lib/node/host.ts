/**
 * The `Host` header's check, which `node-request.ts` makes once per request.
 *
 * @module
 */

/**
 * The Host header's syntax (RFC 9110 section 7.2): a registered name, IPv4 address or IP
 * literal, then an optional port. Checked before it is put in a URL, because a `/`, `?`, `#` or
 * `@` in it would otherwise change the path the handler routes on.
 */
const HOST_PATTERN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::[0-9]{0,5})?$/;

/** The last Host value `isValidHost` accepted. */
let lastValidHost: string | undefined;

/**
 * Whether a Host header value has valid syntax. The last valid value is remembered, so the
 * usual run of requests naming the same host costs a string compare, not a pattern match.
 */
export function isValidHost(host: string | undefined): host is string {
  if (host === undefined) return false;
  if (host === lastValidHost) return true;
  if (!HOST_PATTERN.test(host)) return false;
  lastValidHost = host;
  return true;
}

/** An absolute-form request target (RFC 9112 section 3.2.2), as a proxy client sends it. */
export const ABSOLUTE_FORM = /^https?:\/\//i;
