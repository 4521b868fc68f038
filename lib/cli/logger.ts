/**
 * The standalone server's log: one line per request and one per error, JSON when stdout is not
 * a terminal (for a log collector) and readable text when it is. Never a token or a body: a
 * request line holds the id, method, path, status, duration and sizes only. The same error
 * repeated (a database down, a JWKS server away) is written once, then summarised.
 *
 * A JSON-lines writer of our own rather than a logging library: every package the standalone
 * server needs is installed by every embedder too, and this one job is a few lines. Lines are
 * written once per event-loop turn, not one system call each.
 *
 * @module
 */

import type { ErrorContext } from '../index.ts';
import type { RequestRecord } from '../node.ts';
import { jsonString } from '../operation/json-text.ts';
import type { LogSettings } from './settings.ts';

/** The log's lines, by what they report. */
export interface Logger {
  /** Whether access lines are written: when not, nothing need follow a request for them. */
  readonly logsRequests: boolean;
  /** An access line, at `info`. */
  request(record: RequestRecord): void;
  /** An unexpected error, at `error`, repeats summarised; `check` names a readiness check. */
  error(error: unknown, context?: ErrorContext & { readonly check?: string }): void;
  /** A line of the server's life (started, stopping), at `info`. */
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** Something an operator should act on, at `warn`. */
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** Writes what is buffered now (before the process exits). */
  flush(): void;
}

/** Where the log goes: `process.stdout` fits. */
export interface LogOutput {
  /** Whether it is a terminal: then text, unless the settings say otherwise. */
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

/**
 * A stream (`process.stdout`) as the log's output, for a reader that may go away (`npm start |
 * head -1`): once the stream fails (EPIPE), lines are dropped, `note` hears it once, and the
 * server keeps serving, where the stream's unheard 'error' event would have stopped it.
 *
 * @param stream Where lines go while it can take them.
 * @param note Hears, once, that lines are dropped from now on (stderr fits).
 * @returns The output, for `createLogger` and the readiness line.
 */
export function droppingOutput(
  stream: NodeJS.WritableStream & { readonly isTTY?: boolean | undefined },
  note: (text: string) => void,
): LogOutput {
  let broken = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (broken) return;
    broken = true;
    note(
      `plant-store: stdout is closed (${error.code ?? error.message}); log lines are dropped from now on\n`,
    );
  });
  return { isTTY: stream.isTTY, write: (text) => broken || stream.write(text) };
}

const LEVELS = { info: 0, warn: 1, error: 2 } as const;
/**
 * Lines are written in batches: at this many characters, or this long after the first line of
 * a batch, so that a busy server makes one write for many requests rather than one for each.
 */
const FLUSH_BYTES = 16_384;
const FLUSH_DELAY_MS = 50;

/** How long the same error is summarised rather than written again. */
const REPEAT_WINDOW_MS = 10_000;

/**
 * Creates the log the settings ask for.
 *
 * @param settings The format and level (`PLANT_STORE_LOG`).
 * @param output Where lines go.
 * @returns The logger; with `off`, every method does nothing.
 */
export function createLogger(settings: LogSettings, output: LogOutput): Logger {
  const format =
    settings.format === 'auto' ? (output.isTTY === true ? 'text' : 'json') : settings.format;
  const threshold = LEVELS[settings.level];
  let buffer = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    output.write(text);
  };
  const append = (line: string): void => {
    buffer += line;
    if (buffer.length >= FLUSH_BYTES) flush();
    else timer ??= setTimeout(flush, FLUSH_DELAY_MS);
  };
  // One ISO time string per millisecond, however many lines share it.
  let timeMs = 0;
  let timeText = '';
  const now = (): string => {
    const ms = Date.now();
    if (ms !== timeMs) {
      timeMs = ms;
      timeText = new Date(ms).toISOString();
    }
    return timeText;
  };
  const write = (level: keyof typeof LEVELS, message: string, fields: object): void => {
    if (format === 'off' || LEVELS[level] < threshold) return;
    const time = now();
    append(
      format === 'json'
        ? `${JSON.stringify({ time, level, msg: message, ...fields })}\n`
        : `${time} ${level.toUpperCase().padEnd(5)} ${message}${textFields(fields)}\n`,
    );
  };

  // The same error, repeated: written once, then counted and summarised each window.
  let lastKey: string | undefined;
  let repeats = 0;
  let lastFields: object = {};
  const summarise = (): void => {
    if (repeats > 0) {
      write(
        'error',
        `the same error ${repeats} more time(s) in the last ${REPEAT_WINDOW_MS / 1000} s`,
        lastFields,
      );
    }
    repeats = 0;
  };
  const window = setInterval(summarise, REPEAT_WINDOW_MS);
  window.unref();

  const logsRequests = format !== 'off' && threshold <= LEVELS.info;
  // A request line as JSON, the same text `JSON.stringify` gives for its fields in this order,
  // written out: it is the one line per request, so its cost is the log's cost. Strings a client
  // chose go through `jsonString`. What repeats from line to line is made once: the opening,
  // once per millisecond; the method and path, when they change.
  //
  // Unset until the first line, whose time, method and path may be anything (a request the
  // parser refused has an empty method and path).
  let openingTime: string | undefined;
  let opening = '';
  let method: string | undefined;
  let path: string | undefined;
  let methodAndPath = '';
  const requestJson = (record: RequestRecord): string => {
    const time = now();
    if (time !== openingTime) {
      openingTime = time;
      opening = `{"time":"${time}","level":"info","msg":"request"`;
    }
    if (record.method !== method || record.path !== path) {
      method = record.method;
      path = record.path;
      methodAndPath = `,"method":${jsonString(method)},"path":${jsonString(path)},"status":`;
    }
    const id = record.requestId === undefined ? '' : `,"requestId":${jsonString(record.requestId)}`;
    return (
      `${opening}${id}${methodAndPath}${record.status},` +
      `"durationMs":${Math.round(record.durationMs * 1000) / 1000},` +
      `"bytesIn":${record.bytesIn},"bytesOut":${record.bytesOut}}\n`
    );
  };
  return {
    logsRequests,
    request(record) {
      if (!logsRequests) return;
      if (format === 'json') {
        append(requestJson(record));
        return;
      }
      write('info', 'request', {
        requestId: record.requestId,
        method: record.method,
        path: record.path,
        status: record.status,
        durationMs: Math.round(record.durationMs * 1000) / 1000,
        bytesIn: record.bytesIn,
        bytesOut: record.bytesOut,
      });
    },
    error(error, context) {
      const described = describeError(error);
      const key = `${described.name}:${described.code ?? ''}:${described.message}`;
      lastFields = {
        error: { name: described.name, code: described.code, message: described.message },
      };
      if (key === lastKey) {
        repeats++;
        return;
      }
      summarise();
      lastKey = key;
      write('error', 'unexpected error', {
        requestId: context?.requestId,
        check: context?.check,
        error: described,
      });
    },
    info(message, fields = {}) {
      write('info', message, fields);
    },
    warn(message, fields = {}) {
      write('warn', message, fields);
    },
    flush,
  };
}

/** An error as a log's fields: name, code, message and stack, each on one line. */
function describeError(error: unknown): {
  name: string;
  code?: string | undefined;
  message: string;
  stack?: string | undefined;
} {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    code: typeof code === 'string' ? code : undefined,
    message: error.message,
    stack: error.stack,
  };
}

/** Fields as text: `name=value`, a nested error by its name and message, the stack left out. */
function textFields(fields: object): string {
  let text = '';
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (name === 'error' && typeof value === 'object' && value !== null) {
      const { name: kind, message } = value as { name: string; message: string };
      text += ` ${kind}: ${message.replace(/\s*\n\s*/g, ' ')}`;
    } else {
      text += ` ${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
    }
  }
  return text;
}
