/**
 * The standalone server's log: a line per request and per error, JSON unless stdout is a
 * terminal, never a token or a body; the same error repeated is written once, then summarised.
 * Our own writer rather than a logging library: every package the server needs is installed by
 * every embedder too, and this one job is a few lines.
 *
 * @module
 */

import type { ErrorContext } from '../index.ts';
import type { RequestRecord } from '../node.ts';
import { jsonString } from '../operation/json-text.ts';
import type { LogSettings } from './settings.ts';

export interface Logger {
  /** When false, nothing need follow a request for its line. */
  readonly logsRequests: boolean;
  request(record: RequestRecord): void;
  /** `check` names a readiness check. */
  error(error: unknown, context?: ErrorContext & { readonly check?: string }): void;
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  flush(): void;
}

/** `process.stdout` fits. */
export interface LogOutput {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

/**
 * `stream` for a reader that may go away (`npm start | head -1`): once it fails, lines are
 * dropped, `note` hears it once, and the server keeps serving, where the stream's unheard
 * 'error' event would have stopped it.
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
// Written in batches, so that a busy server makes one write for many requests.
const FLUSH_BYTES = 16_384;
const FLUSH_DELAY_MS = 50;
const REPEAT_WINDOW_MS = 10_000;

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
  // The text `JSON.stringify` gives for these fields, written out: it is the one line per
  // request, so its cost is the log's. The parts that repeat are made again only when they change.
  let openingTime: string | undefined;
  let opening = '';
  // Not '': a request the parser refused has an empty method and path.
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

/** `name=value`; an error by its name and message, without its stack. */
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
