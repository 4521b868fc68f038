import { describeValue } from './describe-value.ts';
import { ConformanceError, type ConformanceCheck, ruleOf } from './report.ts';

/** A server must not get to fill the memory of the process that checks it. */
export const MAX_ANSWER_BYTES = 1_048_576;

/** What one request of a server check sends. */
export interface Send {
  /** The method. @default 'POST' */
  readonly method?: string;
  /** The path and query. @default '/plants' */
  readonly path?: string;
  /** The Authorization header: the valid token's when absent, none when `null`. */
  readonly authorization?: string | null;
  /** The Content-Type header; none when `null`. @default 'application/json' */
  readonly contentType?: string | null;
  /** The body: text (sent as UTF-8), bytes, or a value sent as JSON. @default none */
  readonly body?: string | Uint8Array<ArrayBuffer> | undefined;
}

/** A server's answer, its body read whole (up to `MAX_ANSWER_BYTES`). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The request, as a failure message names it. */
  readonly request: string;
  /** The token masked in text the server sent, before a message quotes it. */
  readonly hide: (text: string) => string;
}

/** Where the checks send requests, with which token. */
export interface Server {
  readonly baseUrl: string;
  /** The base URL's path, without a trailing slash (`''` at the root), for messages. */
  readonly basePath: string;
  readonly token: string;
  /** The token masked in any text (`createTokenMask`). */
  readonly hide: (text: string) => string;
}

/** The server as one check talks to it: the rule its failures name, and its signal. */
export interface Target extends Server {
  readonly rule: string;
  /** Fires when the check ends or its deadline passes; it aborts the check's requests. */
  readonly signal: AbortSignal;
}

const encoder = new TextEncoder();

/** A server check: `run` gets the server with the check's rule and the signal of its requests. */
export function serverCheck(
  server: Server,
  name: string,
  run: (target: Target) => Promise<void>,
  skip?: string,
): ConformanceCheck {
  return { name, run: (signal) => run({ ...server, rule: ruleOf(name), signal }), skip };
}

/**
 * Sends one request and reads the whole answer. `Connection: close`, so that no connection
 * outlives the check or carries what one answer left behind into the next.
 */
export async function send(server: Target, what: Send = {}): Promise<Answer> {
  const { response, request } = await open(server, what);
  const text = await readText(server, response, request);
  return { status: response.status, headers: response.headers, text, request, hide: server.hide };
}

/** Sends one request; the answer's body is left to read (`readText`) or cancel. */
export async function open(
  server: Target,
  what: Send,
): Promise<{ response: Response; request: string }> {
  const method = what.method ?? 'POST';
  const path = what.path ?? '/plants';
  const headers = new Headers();
  const authorization =
    what.authorization === undefined ? `Bearer ${server.token}` : what.authorization;
  if (authorization !== null) headers.set('authorization', authorization);
  const contentType = what.contentType === undefined ? 'application/json' : what.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  headers.set('connection', 'close');
  // Bytes, so that fetch adds no Content-Type of its own.
  const body = typeof what.body === 'string' ? encoder.encode(what.body) : what.body;
  const parts = [
    authorization === null
      ? 'no Authorization'
      : authorization === `Bearer ${server.token}`
        ? 'the valid token'
        : `Authorization ${describeValue(authorization, server.hide)}`,
    contentType === null ? 'no Content-Type' : `Content-Type ${contentType}`,
    body === undefined ? 'no body' : `a ${body.byteLength}-byte body`,
  ];
  const request = `${method} ${server.basePath}${path} (${parts.join(', ')})`;
  let response: Response;
  try {
    response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal: server.signal,
    });
  } catch (error) {
    throw failure(server, error, `${request} got no answer`);
  }
  return { response, request };
}

/** The answer's body as text, up to `MAX_ANSWER_BYTES`. */
export async function readText(
  server: Target,
  response: Response,
  request: string,
): Promise<string> {
  const tooLarge = (size: string) =>
    new ConformanceError(
      server.rule,
      `${request} answered ${response.status} with a body of ${size}, over the 1 MiB (${MAX_ANSWER_BYTES} bytes) the checks read of any answer`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(`${declared} bytes (its Content-Length)`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge(`more than ${MAX_ANSWER_BYTES} bytes`);
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    if (error instanceof ConformanceError) throw error;
    throw failure(server, error, `${request} answered ${response.status}, then its body broke off`);
  }
}

/** Once the check has ended or its deadline passed, it is decided: the signal's reason as it is. */
function failure(server: Target, error: unknown, what: string): unknown {
  if (server.signal.aborted) return server.signal.reason;
  return new ConformanceError(server.rule, `${what}: ${server.hide(errorText(error))}`, {
    cause: error,
  });
}

/** An error's message, with its cause's (where fetch says what failed). */
export function errorText(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } } | null)?.cause?.message;
  const detail = error instanceof Error ? error.message : String(error);
  return `${detail}${typeof cause === 'string' ? ` (${cause})` : ''}`;
}

export function expectStatus(rule: string, answer: Answer, status: number): void {
  if (answer.status === status) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status}; expected ${status}${bodyHint(answer)}`,
  );
}

/** A short view of the body, for a message: as sent, the token masked, cut at 200 characters. */
export function bodyHint(answer: Answer): string {
  if (answer.text === '') return '';
  const text = answer.hide(answer.text);
  return ` (body ${text.length > 200 ? `${text.slice(0, 197)}...` : text})`;
}

/** Fails `rule` unless the answer is the contract's Error: JSON, exactly `{ error, message }`. */
export function expectError(rule: string, answer: Answer, status: number): void {
  expectStatus(rule, answer, status);
  expectJson(rule, answer);
  const body = parse(answer);
  const keys = body !== null && typeof body === 'object' ? Object.keys(body).sort() : [];
  const fields = body as { error?: unknown; message?: unknown };
  if (
    keys.join() !== 'error,message' ||
    fields.error !== status ||
    typeof fields.message !== 'string' ||
    fields.message === ''
  ) {
    throw new ConformanceError(
      `${rule} (Error body)`,
      `${answer.request} answered ${status} with the body ${describeValue(answer.text, answer.hide)}; expected exactly {"error": ${status}, "message": "<text>"}`,
    );
  }
}

/** Fails `rule` unless the answer says `Content-Type: application/json`. */
export function expectJson(rule: string, answer: Answer): void {
  const type = answer.headers.get('content-type') ?? '';
  if (/^application\/json\s*(;|$)/i.test(type)) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status} with Content-Type ${describeValue(type, answer.hide)}; expected application/json`,
  );
}

export function expectHeader(rule: string, answer: Answer, name: string, value: string): void {
  const actual = answer.headers.get(name);
  if (actual === value) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status} with ${name}: ${describeValue(actual ?? undefined, answer.hide)}; expected ${describeValue(value)}`,
  );
}

/** The answer's body as JSON, or `undefined` when it is not JSON. */
export function parse(answer: Answer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    return undefined;
  }
}

/** A NewPlant as JSON text, the id written exactly (a bigint, or a spelling such as `1.0`). */
export function plantJson(id: bigint | string, name: string, tag?: string | null): string {
  const fields = [`"id":${id}`, `"name":${JSON.stringify(name)}`];
  if (tag !== undefined) fields.push(`"tag":${JSON.stringify(tag)}`);
  return `{${fields.join(',')}}`;
}
