/**
 * Every setting of the standalone server in one table (`SETTINGS`): how its value is read
 * (`setting-readers.ts`) and what `--help` says of it.
 *
 * @module
 */

import {
  basePath,
  corsOrigins,
  flag,
  integer,
  jwksUrl,
  list,
  logSettings,
  postgresUrl,
  publicUrl,
  type Read,
  type Reader,
  text,
  tokens,
} from './setting-readers.ts';

export type { LogSettings } from './setting-readers.ts';

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** One setting: how its value is read, and what `--help` says of it, its default included. */
interface Setting {
  /** Reads a present value, even an empty one. */
  readonly read: Reader<unknown>;
  /** What it is, for `--help`. */
  readonly help: string;
}

/** The largest timer `setTimeout` takes: 2^31 - 1 ms. */
const MAX_MS = 2_147_483_647;
// At least 1 ms: node reads 0 as "never", which would turn a limit off.
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
  readonly [N in SettingName]: (typeof SETTINGS)[N]['read'] extends Reader<infer T>
    ? T | undefined
    : never;
};

/** Every present setting read by its table entry, or the first problem in table order. */
export function readValues(env: SettingsEnv): Read<SettingValues> {
  const values: Record<string, unknown> = {};
  for (const [name, { read }] of Object.entries(SETTINGS)) {
    const raw = env[name];
    if (raw === undefined) continue;
    const found = read(raw, name);
    if (found.problem !== undefined) return found;
    values[name] = found.value;
  }
  return { value: values as SettingValues };
}
