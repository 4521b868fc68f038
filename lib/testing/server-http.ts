/**
 * How the server checks talk to a server: one `fetch` per request, the answer read whole, and
 * the assertions every check shares (a status, the contract's Error body, a header).
 *
 * @module
 */

import { describeValue } from './describe-value.ts';
import { ConformanceError } from './report.ts';

/** What one request of a server check sends. */
export interface Send {
  /** The method. @default 'POST' */
  readonly method?: string;
  /** The path and query. @default '/plants' */
  readonly path?: string;
  /**
   * The Authorization header: the valid token's header when absent, none when `null`.
   * @default `Bearer ${token}`
   */
  readonly authorization?: string | null;
  /** The Content-Type header; none when `null`. @default 'application/json' */
  readonly contentType?: string | null;
  /** The body: text (sent as UTF-8), bytes, or a value sent as JSON. @default none */
  readonly body?: string | Uint8Array<ArrayBuffer> | undefined;
}

/** A server's answer, read whole. */
export interface Answer {
  /** The status. */
  readonly status: number;
  /** The headers. */
  readonly headers: Headers;
  /** The body, as text. */
  readonly text: string;
  /** The request, as a failure message names it. */
  readonly request: string;
}

/** Where the checks send requests, with which token. */
export interface Server {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The token the server accepts. */
  readonly token: string;
}

const encoder = new TextEncoder();

/**
 * Sends one request and reads the whole answer.
 *
 * @param server Where, and with which token.
 * @param what What to send.
 * @returns The answer.
 */
export async function send(server: Server, what: Send = {}): Promise<Answer> {
  const method = what.method ?? 'POST';
  const path = what.path ?? '/plants';
  const headers = new Headers();
  const authorization =
    what.authorization === undefined ? `Bearer ${server.token}` : what.authorization;
  if (authorization !== null) headers.set('authorization', authorization);
  const contentType = what.contentType === undefined ? 'application/json' : what.contentType;
  if (contentType !== null) headers.set('content-type', contentType);
  // Bytes, so that fetch adds no Content-Type of its own.
  const body = typeof what.body === 'string' ? encoder.encode(what.body) : what.body;
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    redirect: 'manual',
  });
  const text = await response.text();
  const parts = [
    authorization === null
      ? 'no Authorization'
      : authorization === `Bearer ${server.token}`
        ? 'the valid token'
        : `Authorization ${describeValue(mask(authorization, server.token))}`,
    contentType === null ? 'no Content-Type' : `Content-Type ${contentType}`,
    body === undefined ? 'no body' : `a ${body.byteLength}-byte body`,
  ];
  const request = `${method} ${path} (${parts.join(', ')})`;
  return { status: response.status, headers: response.headers, text, request };
}

/** The header as a message shows it: the valid token never appears in a report. */
function mask(header: string, token: string): string {
  return header.replaceAll(token, '<token>');
}

/**
 * Fails `rule` unless the answer has `status`.
 *
 * @param rule The rule the check holds.
 * @param answer The answer.
 * @param status The status the contract gives.
 */
export function expectStatus(rule: string, answer: Answer, status: number): void {
  if (answer.status === status) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status}; expected ${status}${bodyHint(answer)}`,
  );
}

/** A short view of the body, for a message: as sent, on one line, cut at 200 characters. */
function bodyHint(answer: Answer): string {
  if (answer.text === '') return '';
  // Control characters are what a one-line message cannot hold: matching them is the point.
  // oxlint-disable-next-line no-control-regex
  const text = answer.text.replace(/[\u0000-\u001f]+/g, ' ');
  return ` (body ${text.length > 200 ? `${text.slice(0, 197)}...` : text})`;
}

/**
 * Fails `rule` unless the answer is the contract's Error response for `status`:
 * `application/json`, the body exactly `{ "error": status, "message": <text> }`.
 *
 * @param rule The rule the check holds.
 * @param answer The answer.
 * @param status The status the contract gives.
 */
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
      `${answer.request} answered ${status} with the body ${describeValue(answer.text)}; expected exactly {"error": ${status}, "message": "<text>"}`,
    );
  }
}

/** Fails `rule` unless the answer says `Content-Type: application/json`. */
export function expectJson(rule: string, answer: Answer): void {
  const type = answer.headers.get('content-type') ?? '';
  if (/^application\/json\s*(;|$)/i.test(type)) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status} with Content-Type ${describeValue(type)}; expected application/json`,
  );
}

/**
 * Fails `rule` unless the answer carries `name` with exactly `value`.
 *
 * @param rule The rule the check holds.
 * @param answer The answer.
 * @param name The header.
 * @param value Its value.
 */
export function expectHeader(rule: string, answer: Answer, name: string, value: string): void {
  const actual = answer.headers.get(name);
  if (actual === value) return;
  throw new ConformanceError(
    rule,
    `${answer.request} answered ${answer.status} with ${name}: ${describeValue(actual ?? undefined)}; expected ${describeValue(value)}`,
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
