/**
 * Every setting of the standalone server in one table (`SETTINGS`): how its value is read
 * (`setting-readers.ts`), its default, and what `--help` says of it.
 *
 * @module
 */

import { MAX_TIMER_MS } from '../guards/timer-limit.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from '../index.ts';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HOST,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../node.ts';
import { DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_IN_FLIGHT, DEFAULT_TABLE } from '../postgres.ts';
import {
  basePath,
  corsOrigins,
  DEFAULT_LOG,
  flag,
  integer,
  jwksUrl,
  list,
  logSettings,
  postgresUrl,
  publicUrl,
  type Read,
  type Reader,
  tableName,
  text,
  tokens,
} from './setting-readers.ts';

export type { LogSettings } from './setting-readers.ts';

/** The environment as the parser reads it: `process.env` fits. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** One setting: how its value is read, its default, and what `--help` says of it. */
export interface Setting<T> {
  /** Reads a present value, even an empty one. */
  readonly read: Reader<T>;
  /** What it is, for `--help`. */
  readonly help: string;
  /** The value when unset; without one, an unset setting reads as `undefined`. */
  readonly default?: T;
  /** What unset means, for `--help`, where the default value cannot say it. */
  readonly whenUnset?: string;
}

/** The largest delay a timer takes: `createPlantStore`'s bound for `timeoutMs`, not exported. */
// At least 1 ms: node reads 0 as "never", which would turn a limit off.
const milliseconds = integer(1, MAX_TIMER_MS);
// A drain may be 0: it is a wait, not a limit.
const duration = integer(0, MAX_TIMER_MS);
const port = integer(0, 65_535);
const count = integer(1, Number.MAX_SAFE_INTEGER);

/**
 * `PLANT_STORE_DRAIN_MS` when an admin port is set, since something then probes `/readyz`: a
 * balancer checking every second or two needs a few checks to see an instance leave, and
 * Kubernetes a few seconds to take a stopping pod out of its Services; with the shutdown timeout
 * (`DEFAULT_SHUTDOWN_TIMEOUT_MS`) it stays within Kubernetes' 30 s grace period.
 */
export const DEFAULT_DRAIN_MS = 5_000;

/**
 * Every setting the server reads, in the order `--help` lists them and problems are reported;
 * any other `PLANT_STORE_*` variable is a bad setting.
 */
export const SETTINGS = {
  PORT: { read: port, help: 'port; 0 picks a free one', default: DEFAULT_PORT },
  // Loopback, so a fresh start is not reachable from the network.
  HOST: { read: text, help: 'interface to listen on', default: DEFAULT_HOST },
  PLANT_STORE_TOKENS: {
    read: tokens,
    help: 'comma-separated bearer tokens',
    whenUnset: 'one random token, printed on stderr',
  },
  PLANT_STORE_JWKS_URL: {
    read: jwksUrl,
    help: 'JWT mode: tokens are JWTs checked against this JWKS',
  },
  PLANT_STORE_JWT_ISSUER: { read: text, help: 'JWT mode: the exact iss (required)' },
  PLANT_STORE_JWT_AUDIENCE: { read: text, help: 'JWT mode: the audience (required)' },
  PLANT_STORE_JWT_ALGORITHMS: {
    read: list('algorithm', 'comma-separated list'),
    help: 'JWT mode: allowlist',
    // createJwtVerifier's DEFAULT_JWT_ALGORITHMS: importing it here would load jose.
    whenUnset: 'RS256,PS256,ES256,EdDSA',
  },
  DATABASE_URL: {
    read: postgresUrl,
    help: 'postgres:// URL: plants in PostgreSQL',
    whenUnset: 'in memory',
  },
  PLANT_STORE_TABLE: {
    read: tableName,
    help: 'the PostgreSQL table plants are kept in, in the search_path: created if missing, else checked',
    default: DEFAULT_TABLE,
  },
  PLANT_STORE_CORS_ORIGINS: {
    read: corsOrigins,
    help: '* or comma-separated origins browsers may call from, each exact (https://app.example.com) or a subdomain pattern (https://*.example.com: not example.com itself)',
    whenUnset: 'off',
  },
  PLANT_STORE_PUBLIC_URL: {
    read: publicUrl,
    help: 'the URL clients use, such as https://api.example.com/v1: the OpenAPI document names it',
    whenUnset: 'the relative server ".", the directory the document is served from',
  },
  PLANT_STORE_BASE_PATH: {
    read: basePath,
    help: 'the path the routes and /docs are under, / or such as /api',
    whenUnset: "the public URL's path, else /",
  },
  PLANT_STORE_LOG: {
    read: logSettings,
    help: 'json, text or off, and info, warn or error; on stdout, dropped (said once on stderr) if its reader goes away',
    default: DEFAULT_LOG,
    whenUnset: 'json, or text on a terminal; info',
  },
  PLANT_STORE_ADMIN_PORT: {
    read: port,
    help: 'port of /livez, /readyz (from a check at most 1 s old), /metrics',
    whenUnset: 'none',
  },
  PLANT_STORE_ADMIN_HOST: {
    read: text,
    help: 'interface of the admin port',
    default: DEFAULT_HOST,
  },
  PLANT_STORE_DRAIN_MS: {
    read: duration,
    help: 'after a stop signal, how long it keeps serving (/readyz 503, every answer with Connection: close) before it stops accepting',
    // 0 without an admin port: nothing probes readiness, and Ctrl-C in development stays instant.
    whenUnset: `${DEFAULT_DRAIN_MS} with PLANT_STORE_ADMIN_PORT, else 0`,
  },
  PLANT_STORE_MAX_BODY_BYTES: {
    read: count,
    help: 'largest body accepted',
    default: DEFAULT_MAX_BODY_BYTES,
  },
  PLANT_STORE_TIMEOUT_MS: {
    read: milliseconds,
    help: 'deadline of one create',
    default: DEFAULT_TIMEOUT_MS,
  },
  PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS: {
    read: milliseconds,
    help: 'idle keep-alive connections close after',
    // Longer than the 60 s idle timeout of common load balancers.
    default: 65_000,
  },
  PLANT_STORE_HEADERS_TIMEOUT_MS: {
    read: milliseconds,
    help: 'time to send the headers',
    default: DEFAULT_HEADERS_TIMEOUT_MS,
  },
  PLANT_STORE_REQUEST_TIMEOUT_MS: {
    read: milliseconds,
    help: 'time to send the whole request',
    default: DEFAULT_REQUEST_TIMEOUT_MS,
  },
  PLANT_STORE_PG_POOL_MAX: {
    read: integer(1, 10_000),
    help: 'most PostgreSQL connections',
    default: 10,
  },
  PLANT_STORE_PG_MAX_BATCH: {
    read: integer(1, 10_000),
    help: 'most creates sent together in one PostgreSQL statement',
    default: DEFAULT_MAX_BATCH_SIZE,
  },
  PLANT_STORE_PG_MAX_IN_FLIGHT: {
    read: integer(1, 1_000),
    help: 'most PostgreSQL statements of creates in flight; past it creates wait and batch',
    default: DEFAULT_MAX_IN_FLIGHT,
  },
  PLANT_STORE_PG_PREPARE: {
    read: flag,
    help: 'true: each PostgreSQL statement prepared once per connection; false: unnamed, for a pooler that drops prepared statements (found at its first refusal otherwise)',
    default: true,
  },
  PLANT_STORE_MAX_PLANTS: {
    read: count,
    help: 'most plants kept in memory; past it a new id gets 507',
    whenUnset: 'no cap',
  },
  PLANT_STORE_MAX_CONNECTIONS: {
    read: integer(1, 1_000_000),
    help: 'most connections open at once, fewer under a low ulimit -n; past it the one idle the longest is closed, and a new one refused only while all are busy',
    default: DEFAULT_MAX_CONNECTIONS,
  },
} satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;

type ValueOf<S> = S extends { readonly read: Reader<infer T> } ? T : never;

/** Each setting's value: its default when unset, or `undefined` where it has none. */
export type SettingValues = {
  readonly [N in SettingName]: (typeof SETTINGS)[N] extends { readonly default: unknown }
    ? ValueOf<(typeof SETTINGS)[N]>
    : ValueOf<(typeof SETTINGS)[N]> | undefined;
};

/** Every setting read by its table entry, or the first problem in table order. */
export function readValues(env: SettingsEnv): Read<SettingValues> {
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[name];
    if (raw === undefined) {
      values[name] = setting.default;
      continue;
    }
    const read = setting.read(raw, name);
    if (read.problem !== undefined) return read;
    values[name] = read.value;
  }
  return { value: values as SettingValues };
}
