/**
 * The Host syntax (RFC 9110 section 7.2), checked before it goes into a URL: a `/`, `?`, `#` or
 * `@` in it would change the path the handler routes on.
 */
const HOST_PATTERN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::[0-9]{0,5})?$/;

let lastValidHost: string | undefined;

/** Whether a Host value has valid syntax; the last valid one is remembered, as most repeat it. */
export function isValidHost(host: string | undefined): host is string {
  if (host === undefined) return false;
  if (host === lastValidHost) return true;
  if (!HOST_PATTERN.test(host)) return false;
  lastValidHost = host;
  return true;
}

/** An absolute-form request target (RFC 9112 section 3.2.2), as a proxy client sends it. */
export const ABSOLUTE_FORM = /^https?:\/\//i;
