/**
 * How each setting's value is read: a reader takes the raw value (present, maybe empty) and the
 * setting's name, and returns the value, or a problem: one line that names the setting and what
 * it accepts, and never echoes a secret.
 *
 * @module
 */

import { originProblem } from '../cors/allowed-origins.ts';
import { B64TOKEN, B64TOKEN_RULE } from '../operation/bearer-token.ts';
import { identifierProblem } from '../guards/postgres-identifier.ts';
import { basePathProblem, publicUrlProblem } from '../store/api-location.ts';

/** A value read, or the one line the server prints before it exits 2. */
export type Read<T> =
  { readonly value: T; readonly problem?: undefined } | { readonly problem: string };

export type Reader<T> = (raw: string, name: string) => Read<T>;

/** An integer in decimal digits (no sign, no exponent) within `[min, max]`. */
export function integer(min: number, max: number): Reader<number> {
  return (raw, name) => {
    const value = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    return value >= min && value <= max
      ? { value }
      : { problem: `${name} must be an integer in ${min}-${max}, got ${JSON.stringify(raw)}` };
  };
}

/** The value as given, unless `problemOf` finds something wrong with it. */
function asGiven(problemOf: (raw: string, name: string) => string | undefined): Reader<string> {
  return (raw, name) => {
    const problem = problemOf(raw, name);
    return problem === undefined ? { value: raw } : { problem };
  };
}

// An empty HOST would make node listen on every interface: never by accident.
export const text = asGiven((raw, name) =>
  raw.trim() === '' ? `${name} must not be empty` : undefined,
);

/**
 * A comma-separated list, entries trimmed and empty ones skipped, holding at least one `noun`;
 * `problem` says what is wrong with the entry at a 1-based position.
 */
export function list(
  noun: string,
  hint: string,
  problem: (entry: string, position: number) => string | undefined = () => undefined,
): Reader<string[]> {
  return (raw, name) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (entries.length === 0) return { problem: `${name} is set but holds no ${noun} (${hint})` };
    for (const [index, entry] of entries.entries()) {
      const found = problem(entry, index + 1);
      if (found !== undefined) return { problem: `${name}: ${found}` };
    }
    return { value: entries };
  };
}

/** Bearer tokens; a bad one is named by its position, never echoed. */
export const tokens = list('token', 'comma-separated list', (token, position) =>
  B64TOKEN.test(token)
    ? undefined
    : `token ${position} is not a valid bearer token ${B64TOKEN_RULE}`,
);

const originList = list(
  'origin',
  'comma-separated origins such as https://app.example.com, or *',
  (origin) => originProblem(origin),
);

export const corsOrigins: Reader<{ origins: '*' | string[] }> = (raw, name) => {
  if (raw.trim() === '*') return { value: { origins: '*' } };
  const read = originList(raw, name);
  return read.problem === undefined ? { value: { origins: read.value } } : read;
};

function hasProtocol(raw: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

// Never echoed: it usually carries the database password.
export const postgresUrl = asGiven((raw, name) =>
  hasProtocol(raw, ['postgres:', 'postgresql:'])
    ? undefined
    : `${name} must be a postgres:// or postgresql:// URL`,
);

/** A table name as `ensurePlantTable` takes it: by the library's own rule, so the two agree. */
export const tableName = asGiven((raw, name) => {
  const problem = identifierProblem(raw);
  return problem === undefined ? undefined : `${name} ${problem}`;
});

// No credentials: fetch refuses them, with the password in its message.
export const jwksUrl = asGiven((raw, name) => {
  if (!hasProtocol(raw, ['http:', 'https:'])) return `${name} must be an http or https URL`;
  const { username, password } = new URL(raw);
  return username === '' && password === ''
    ? undefined
    : `${name} must not hold a user name or password`;
});

export const publicUrl = asGiven((raw, name) => {
  const problem = publicUrlProblem(raw);
  return problem === undefined ? undefined : `${name} ${problem}`;
});

/** `/` (read as `''`) or a URL path such as `/api`. */
export const basePath: Reader<string> = (raw, name) => {
  const path = raw.trim();
  if (path === '/') return { value: '' };
  if (basePathProblem(path) === undefined) return { value: path };
  return {
    problem: `${name} must be / or a URL path such as /api (no trailing slash, no query), got ${JSON.stringify(raw)}`,
  };
};

export const flag: Reader<boolean> = (raw, name) => {
  const value = raw.trim().toLowerCase();
  if (value === 'true' || value === 'false') return { value: value === 'true' };
  return { problem: `${name} must be true or false, got ${JSON.stringify(raw)}` };
};

/** How the server logs. */
export interface LogSettings {
  /** `json`, `text`, `off`, or `auto`: JSON unless stdout is a terminal. */
  readonly format: 'json' | 'text' | 'off' | 'auto';
  /** The least severe lines written: `info` (every request), `warn` or `error`. */
  readonly level: 'info' | 'warn' | 'error';
}

export const DEFAULT_LOG: LogSettings = { format: 'auto', level: 'info' };

/** A format and a level, comma-separated in any order. */
export const logSettings: Reader<LogSettings> = (raw, name) => {
  let { format, level } = DEFAULT_LOG;
  for (const word of raw.split(',').map((entry) => entry.trim().toLowerCase())) {
    if (word === 'json' || word === 'text' || word === 'off') format = word;
    else if (word === 'info' || word === 'warn' || word === 'error') level = word;
    else if (word !== '') {
      return {
        problem: `${name} takes json, text or off and a level, info, warn or error (such as json,warn), got ${JSON.stringify(raw)}`,
      };
    }
  }
  return { value: { format, level } };
};
