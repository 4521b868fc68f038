/**
 * Every setting of the standalone server in one table (`SETTINGS`): how its value is read and
 * what `--help` says of it. A reader takes the raw value (present, maybe empty) and the
 * setting's name, and returns the value or throws a `SettingError` whose message names the
 * setting and what it accepts, and never echoes a secret.
 *
 * @module
 */

import { originProblem } from '../cors/allowed-origins.ts';
import { B64TOKEN } from '../operation/bearer-token.ts';
import { checkBasePath, publicUrlProblem } from '../store/api-location.ts';

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** A bad setting: its message is the one line the server prints before it exits 2. */
export class SettingError extends Error {}

/** Reads a present value of the setting `name`. */
type Reader<T> = (raw: string, name: string) => T;

function invalid(message: string): never {
  throw new SettingError(message);
}

/** An integer in decimal digits within `[min, max]`. */
function integer(min: number, max: number): Reader<number> {
  return (raw, name) => {
    const value = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    if (value >= min && value <= max) return value;
    return invalid(`${name} must be an integer in ${min}-${max}, got ${JSON.stringify(raw)}`);
  };
}

/** Any text that is not blank, as given. */
const text: Reader<string> = (raw, name) =>
  // An empty HOST would make node listen on every interface: never by accident.
  raw.trim() === '' ? invalid(`${name} must not be empty`) : raw;

/**
 * A comma-separated list, entries trimmed and empty ones skipped, holding at least one `noun`;
 * `problem` says what is wrong with the entry at a 1-based position.
 */
function list(
  noun: string,
  hint: string,
  problem: (entry: string, position: number) => string | undefined = () => undefined,
): Reader<string[]> {
  return (raw, name) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (entries.length === 0) invalid(`${name} is set but holds no ${noun} (${hint})`);
    entries.forEach((entry, index) => {
      const found = problem(entry, index + 1);
      if (found !== undefined) invalid(`${name}: ${found}`);
    });
    return entries;
  };
}

/** Bearer tokens; a bad one is named by its position, never echoed. */
const tokens = list('token', 'comma-separated list', (token, position) =>
  B64TOKEN.test(token)
    ? undefined
    : `token ${position} is not a valid bearer token (RFC 6750 b64token: letters, digits, -._~+/ then optional =)`,
);

/** `*`, or origins and subdomain patterns written as a browser sends them. */
const corsOrigins: Reader<{ origins: '*' | string[] }> = (raw, name) => ({
  origins:
    raw.trim() === '*'
      ? '*'
      : list('origin', 'comma-separated origins such as https://app.example.com, or *', (origin) =>
          originProblem(origin),
        )(raw, name),
});

/** Whether `raw` is a URL with one of `protocols`. */
function hasProtocol(raw: string, protocols: readonly string[]): boolean {
  // URL.canParse is Node 19.9+; the constructor works on every Node this package supports.
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/** A PostgreSQL URL; never echoed, it usually carries the database password. */
const postgresUrl: Reader<string> = (raw, name) =>
  hasProtocol(raw, ['postgres:', 'postgresql:'])
    ? raw
    : invalid(`${name} must be a postgres:// or postgresql:// URL`);

/** An http(s) URL without credentials: fetch refuses those, with the password in its message. */
const jwksUrl: Reader<string> = (raw, name) => {
  if (!hasProtocol(raw, ['http:', 'https:'])) invalid(`${name} must be an http or https URL`);
  const { username, password } = new URL(raw);
  if (username !== '' || password !== '') {
    invalid(`${name} must not hold a user name or password`);
  }
  return raw;
};

/** An absolute http(s) URL with no query, as `createPlantStore`'s `publicUrl` takes it. */
const publicUrl: Reader<string> = (raw, name) => {
  const problem = publicUrlProblem(raw);
  return problem === undefined ? raw : invalid(`${name} ${problem}`);
};

/** `/` (read as `''`) or a URL path such as `/api`. */
const basePath: Reader<string> = (raw, name) => {
  const path = raw.trim();
  if (path === '/') return '';
  try {
    return checkBasePath(path === '' ? null : path, name);
  } catch {
    return invalid(
      `${name} must be / or a URL path such as /api (no trailing slash, no query), got ${JSON.stringify(raw)}`,
    );
  }
};

/** `true` or `false`. */
const flag: Reader<boolean> = (raw, name) => {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === 'false') return value === 'true';
  return invalid(`${name} must be true or false, got ${JSON.stringify(raw)}`);
};

/** How the server logs: a format (or `auto`, JSON unless stdout is a terminal) and a level. */
export interface LogSettings {
  /** `json`, `text`, `off`, or `auto`: JSON unless stdout is a terminal. */
  readonly format: 'json' | 'text' | 'off' | 'auto';
  /** The least severe lines written: `info` (every request), `warn` or `error`. */
  readonly level: 'info' | 'warn' | 'error';
}

/** Comma-separated words, a format (`json`, `text`, `off`) and a level, in any order. */
const logSettings: Reader<LogSettings> = (raw, name) => {
  let format: LogSettings['format'] = 'auto';
  let level: LogSettings['level'] = 'info';
  for (const word of raw.split(',').map((entry) => entry.trim().toLowerCase())) {
    if (word === 'json' || word === 'text' || word === 'off') format = word;
    else if (word === 'info' || word === 'warn' || word === 'error') level = word;
    else if (word !== '') {
      invalid(
        `${name} takes json, text or off and a level, info, warn or error (such as json,warn), got ${JSON.stringify(raw)}`,
      );
    }
  }
  return { format, level };
};

/** One setting: how its value is read, and what `--help` says of it, its default included. */
interface Setting {
  /** Reads a present value, even an empty one. */
  readonly read: Reader<unknown>;
  /** What it is, for `--help`. */
  readonly help: string;
}

/** The largest timer `setTimeout` takes: 2^31 - 1 ms. */
const MAX_MS = 2_147_483_647;
// Every timeout is at least 1 ms: node reads 0 as "never", which would turn a limit off.
const milliseconds = integer(1, MAX_MS);
const port = integer(0, 65_535);

/**
 * Every setting the server reads, in the order `--help` lists them and errors are reported;
 * any other `PLANT_STORE_*` variable is a bad setting.
 */
export const SETTINGS = {
  PORT: { read: port, help: 'port; 0 picks a free one (default: 3000)' },
  HOST: { read: text, help: 'interface to listen on (default: 127.0.0.1)' },
  PLANT_STORE_TOKENS: {
    read: tokens,
    help: 'comma-separated bearer tokens (default: one random token, printed on stderr)',
  },
  PLANT_STORE_JWKS_URL: {
    read: jwksUrl,
    help: 'JWT mode: tokens are JWTs checked against this JWKS',
  },
  PLANT_STORE_JWT_ISSUER: { read: text, help: 'JWT mode: the exact iss (required)' },
  PLANT_STORE_JWT_AUDIENCE: { read: text, help: 'JWT mode: the audience (required)' },
  PLANT_STORE_JWT_ALGORITHMS: {
    read: list('algorithm', 'comma-separated list'),
    help: 'JWT mode: allowlist (default: RS256,PS256,ES256,EdDSA)',
  },
  DATABASE_URL: {
    read: postgresUrl,
    help: 'postgres:// URL: plants in PostgreSQL (default: in memory)',
  },
  PLANT_STORE_CORS_ORIGINS: {
    read: corsOrigins,
    help: '* or comma-separated origins browsers may call from, each exact (https://app.example.com) or a subdomain pattern (https://*.example.com: not example.com itself) (default: off)',
  },
  PLANT_STORE_PUBLIC_URL: {
    read: publicUrl,
    help: 'the URL clients use, such as https://api.example.com/v1: the OpenAPI document names it (default: the relative server, the base path or /)',
  },
  PLANT_STORE_BASE_PATH: {
    read: basePath,
    help: "the path the routes and /docs are under, / or such as /api (default: the public URL's path, else /)",
  },
  PLANT_STORE_LOG: {
    read: logSettings,
    help: 'json, text or off, and info, warn or error; on stdout, dropped (said once on stderr) if its reader goes away (default: json, or text on a terminal; info)',
  },
  PLANT_STORE_ADMIN_PORT: {
    read: port,
    help: 'port of /livez, /readyz (from a check at most 1 s old), /metrics (default: none)',
  },
  PLANT_STORE_ADMIN_HOST: { read: text, help: 'interface of the admin port (default: 127.0.0.1)' },
  PLANT_STORE_MAX_BODY_BYTES: {
    read: integer(1, Number.MAX_SAFE_INTEGER),
    help: 'largest body accepted (default: 102400)',
  },
  PLANT_STORE_TIMEOUT_MS: { read: milliseconds, help: 'deadline of one create (default: 10000)' },
  PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS: {
    read: milliseconds,
    help: 'idle keep-alive connections close after (default: 65000)',
  },
  PLANT_STORE_HEADERS_TIMEOUT_MS: {
    read: milliseconds,
    help: 'time to send the headers (default: 10000)',
  },
  PLANT_STORE_REQUEST_TIMEOUT_MS: {
    read: milliseconds,
    help: 'time to send the whole request (default: 30000)',
  },
  PLANT_STORE_PG_POOL_MAX: {
    read: integer(1, 10_000),
    help: 'most PostgreSQL connections (default: 10)',
  },
  PLANT_STORE_PG_MAX_BATCH: {
    read: integer(1, 10_000),
    help: 'most creates sent together in one PostgreSQL statement (default: 100)',
  },
  PLANT_STORE_PG_MAX_IN_FLIGHT: {
    read: integer(1, 1_000),
    help: 'most PostgreSQL statements of creates in flight; past it creates wait and batch (default: 4)',
  },
  PLANT_STORE_PG_PREPARE: {
    read: flag,
    help: 'true: each PostgreSQL statement prepared once per connection; false: unnamed, for a pooler that drops prepared statements (found at its first refusal otherwise) (default: true)',
  },
  PLANT_STORE_MAX_PLANTS: {
    read: integer(1, Number.MAX_SAFE_INTEGER),
    help: 'most plants kept in memory; past it a new id gets 507 (default: no cap)',
  },
  PLANT_STORE_MAX_CONNECTIONS: {
    read: integer(1, 1_000_000),
    help: 'most connections open at once; past it the one idle the longest is closed, and a new one refused only while all are busy (default: 4096, less under a low ulimit -n)',
  },
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** Each setting's value, `undefined` when it is unset. */
export type SettingValues = {
  readonly [N in SettingName]: ReturnType<(typeof SETTINGS)[N]['read']> | undefined;
};

/** Every present setting read by its table entry; throws the first `SettingError`. */
export function readValues(env: SettingsEnv): SettingValues {
  const values: Record<string, unknown> = {};
  for (const [name, { read }] of Object.entries(SETTINGS)) {
    const raw = env[name];
    if (raw !== undefined) values[name] = read(raw, name);
  }
  return values as SettingValues;
}
