// A server that writes back the Authorization header it got (in a body, a header, a message)
// must not put the token into a report, and so into CI logs.

/**
 * A function that replaces the token with `<token>` wherever it appears in text a server sent or
 * in a request's description: whole (so `Bearer <token>` too), in any case, and with any of its
 * characters written as JSON may write them (`\u002B`, or `\/` for a slash; `\\u002B` in JSON
 * quoted in JSON) or as a URL does (`%2B`). Apply it before text is cut short, or a quote could
 * end inside the token.
 *
 * @param token The token, a b64token as `checkServer` accepts it: not empty, and ASCII.
 * @returns The masking function.
 */
export function createTokenMask(token: string): (text: string) => string {
  const pattern = Array.from(token, (char) => {
    const code = char.charCodeAt(0);
    const forms = [
      char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'),
      `\\\\+u${code.toString(16).padStart(4, '0')}`,
      `%${code.toString(16).padStart(2, '0')}`,
    ];
    if (char === '/') forms.push('\\\\+\\/');
    return `(?:${forms.join('|')})`;
  }).join('');
  const anywhere = new RegExp(pattern, 'gi');
  return (text) => text.replace(anywhere, '<token>');
}
