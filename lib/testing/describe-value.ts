// C0, DEL, C1, the line separators and the bidi controls: a terminal or a viewer acts on them.
// oxlint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Text with those characters as `\uXXXX` escapes: what a server chose prints, never acts. */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON, but a bigint as `123n` and `undefined` as such: an absent tag and a `null` one differ. A
 * value whose reading throws (a getter, a `Proxy`) is described as that, so a report still names
 * its rule. Every string and key passes through `hide` before it is cut short.
 */
export function describeValue(value: unknown, hide: (text: string) => string = same): string {
  try {
    return describe(value, hide);
  } catch {
    return 'a value that throws when read';
  }
}

function same(text: string): string {
  return text;
}

function describe(value: unknown, hide: (text: string) => string): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') {
    const text = hide(value);
    return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
  }
  if (Array.isArray(value)) return `[${value.map((item) => describe(item, hide)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(hide(k))}: ${describe(v, hide)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

/** Deep equality of JSON-like values, bigints included; a key holding `undefined` counts. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
