/**
 * What the standalone server's setting parsers share: the result type, and the checks of a
 * URL's protocol and of an integer setting.
 *
 * @module
 */

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** A parsed setting, or one line saying what is wrong with it. */
export type Parsed<T> = { readonly value: T } | { readonly error: string };

/** Whether `raw` is a URL with one of `protocols`. */
export function hasProtocol(raw: string, protocols: readonly string[]): boolean {
  // URL.canParse is Node 19.9+; the constructor works on every Node this package supports.
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/**
 * An integer setting written in decimal digits, within `[min, max]`, or `fallback` when unset.
 *
 * @returns The value, or an error that names the setting and the range.
 */
export function integerSetting(
  env: SettingsEnv,
  name: string,
  fallback: number | undefined,
  min: number,
  max: number,
): Parsed<number | undefined> {
  const raw = env[name];
  if (raw === undefined) return { value: fallback };
  const value = /^[0-9]{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(value >= min && value <= max)) {
    return { error: `${name} must be an integer in ${min}-${max}, got ${JSON.stringify(raw)}` };
  }
  return { value };
}
