/**
 * The standalone server's settings, parsed from the environment without side effects: every
 * setting is read and checked here, so the CLI only acts on the result. Each capability has its
 * own parser (`parseAuth`, `parseStorage`) and its own tagged union, so JWT auth and PostgreSQL
 * storage slot in as new `kind`s without touching the rest.
 *
 * @module
 */

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/**
 * How bearer tokens are checked.
 * - `tokens`: a fixed list (`PLANT_STORE_TOKENS`).
 * - `random-token`: no list given; the CLI generates one token and prints it once.
 */
export type AuthSettings =
  | { readonly kind: 'tokens'; readonly tokens: readonly string[] }
  | { readonly kind: 'random-token' };

/** Where plants are stored: in memory, for as long as the process lives. */
export type StorageSettings = { readonly kind: 'memory' };

/** The standalone server's settings. */
export interface Settings {
  /** The port to listen on; `0` picks a free one. */
  readonly port: number;
  /** The interface to listen on. */
  readonly host: string;
  /** How bearer tokens are checked. */
  readonly auth: AuthSettings;
  /** Where plants are stored. */
  readonly storage: StorageSettings;
}

/** What `parseSettings` reports: the settings, or one line saying what is wrong. */
export type ParseSettingsResult =
  | { readonly ok: true; readonly settings: Settings }
  | { readonly ok: false; readonly error: string };

/** The default `PORT`. */
export const DEFAULT_PORT = 3000;
/** The default `HOST`: loopback only, so a fresh start is not reachable from the network. */
export const DEFAULT_HOST = '127.0.0.1';

// RFC 6750 b64token: a token outside it could never be presented, so it is a bad setting.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

type Parsed<T> = { readonly value: T } | { readonly error: string };

/**
 * Parses the standalone server's settings (`PORT`, `HOST`, `PLANT_STORE_TOKENS`) from an
 * environment. Pure: it reads only `env`, generates nothing and prints nothing.
 *
 * `PORT` defaults to 3000 and must be an integer in 0-65535 written in decimal digits; `HOST`
 * defaults to `127.0.0.1` and must not be empty; `PLANT_STORE_TOKENS` is a comma-separated list
 * whose entries are trimmed and whose empty entries are skipped; set but holding no token, or
 * holding a token that is not an RFC 6750 `b64token`, it is an error. Unset, auth is
 * `random-token`. An error message names the setting and never echoes a token.
 *
 * @param env The environment, such as `process.env`.
 * @returns The settings, or a one-line error.
 * @example
 * ```ts
 * const result = parseSettings({ PORT: '0', PLANT_STORE_TOKENS: 'alpha, beta' });
 * // { ok: true, settings: { port: 0, host: '127.0.0.1',
 * //   auth: { kind: 'tokens', tokens: ['alpha', 'beta'] }, storage: { kind: 'memory' } } }
 * ```
 */
export function parseSettings(env: SettingsEnv): ParseSettingsResult {
  const port = parsePort(env.PORT);
  if ('error' in port) return { ok: false, error: port.error };
  const host = parseHost(env.HOST);
  if ('error' in host) return { ok: false, error: host.error };
  const auth = parseAuth(env);
  if ('error' in auth) return { ok: false, error: auth.error };
  const storage = parseStorage(env);
  if ('error' in storage) return { ok: false, error: storage.error };
  return {
    ok: true,
    settings: { port: port.value, host: host.value, auth: auth.value, storage: storage.value },
  };
}

function parsePort(raw: string | undefined): Parsed<number> {
  if (raw === undefined) return { value: DEFAULT_PORT };
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port <= 65535)) {
    return { error: `PORT must be an integer in 0-65535, got ${JSON.stringify(raw)}` };
  }
  return { value: port };
}

function parseHost(raw: string | undefined): Parsed<string> {
  if (raw === undefined) return { value: DEFAULT_HOST };
  // An empty host would make node listen on every interface: never by accident.
  if (raw.trim() === '') return { error: 'HOST must not be empty' };
  return { value: raw };
}

function parseAuth(env: SettingsEnv): Parsed<AuthSettings> {
  const raw = env.PLANT_STORE_TOKENS;
  if (raw === undefined) return { value: { kind: 'random-token' } };
  const tokens: string[] = [];
  for (const entry of raw.split(',')) {
    const token = entry.trim();
    if (token === '') continue;
    if (!B64TOKEN.test(token)) {
      return {
        error: `PLANT_STORE_TOKENS: token ${tokens.length + 1} is not a valid bearer token (RFC 6750 b64token: letters, digits, -._~+/ then optional =)`,
      };
    }
    tokens.push(token);
  }
  if (tokens.length === 0) {
    return { error: 'PLANT_STORE_TOKENS is set but holds no token (comma-separated list)' };
  }
  return { value: { kind: 'tokens', tokens } };
}

function parseStorage(_env: SettingsEnv): Parsed<StorageSettings> {
  return { value: { kind: 'memory' } };
}
