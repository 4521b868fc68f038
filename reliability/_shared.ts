/** What the soak and the fuzz share: flags, a seeded generator, HTTP calls and the summary table. */
import { type Agent, request as httpRequest } from 'node:http';
import { assertMatchesOpenApi } from '../test/support/openapi.ts';

/**
 * Reads `--name value` flags into numbers (or strings), with defaults; an unknown flag or a
 * value that is not a number where one is expected ends the process with a usage line.
 */
export function parseFlags<T extends Record<string, number | string>>(
  argv: readonly string[],
  defaults: T,
  usage: string,
): T {
  const flags: Record<string, number | string> = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.startsWith('--') ? arg.slice(2).split('=', 2) : [];
    if (name === undefined || !(name in defaults)) exitWithUsage(`unknown argument ${arg}`, usage);
    const raw = inline ?? argv[++i];
    if (raw === undefined) exitWithUsage(`--${name} needs a value`, usage);
    if (typeof defaults[name] === 'number') {
      const value = Number(raw);
      if (!Number.isFinite(value) || value < 0) exitWithUsage(`--${name} must be a number`, usage);
      flags[name] = value;
    } else {
      flags[name] = raw;
    }
  }
  return flags as T;
}

function exitWithUsage(problem: string, usage: string): never {
  process.stderr.write(`${problem}\nusage: ${usage}\n`);
  process.exit(2);
}

/** A small seeded generator (mulberry32): the same seed gives the same choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, picked with `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A request as the reliability scripts send it. */
export interface HttpCall {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array;
}

/** A response as received: status, headers and body text. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

/** Sends one request through a keep-alive agent; rejects on a network error or after `timeoutMs`. */
export function send(
  agent: Agent,
  port: number,
  call: HttpCall,
  timeoutMs = 30_000,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: call.method,
        path: call.path,
        headers: call.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers[name] = String(value);
          }
          resolve({
            status: res.statusCode ?? 0,
            headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Which part of the OpenAPI document declares the answer to a path (`undefined`: the document). */
export function declaredBy(
  method: string,
  pathname: string,
): 'createPlant' | 'NotFound' | 'MethodNotAllowed' | undefined {
  if (pathname === '/plants') return method === 'POST' ? 'createPlant' : 'MethodNotAllowed';
  if (pathname === '/openapi.json') {
    return method === 'GET' || method === 'HEAD' ? undefined : 'MethodNotAllowed';
  }
  return 'NotFound';
}

/**
 * Checks an answer against the OpenAPI document (`test/_openapi.ts`); returns the problem, or
 * `undefined` when it conforms. The document itself (`GET /openapi.json`) is checked for its
 * status and content type only.
 */
export async function openApiProblem(
  method: string,
  path: string,
  answer: HttpAnswer,
): Promise<string | undefined> {
  const where = declaredBy(method, new URL(`http://x${path}`).pathname);
  try {
    if (where === undefined) {
      if (answer.status !== 200 || answer.headers['content-type'] !== 'application/json') {
        return `GET ${path} answered ${answer.status} ${answer.headers['content-type']}`;
      }
      return undefined;
    }
    if (method === 'HEAD') {
      // No body to validate: the status the route declares, and the Error body's media type.
      const status = where === 'NotFound' ? 404 : 405;
      if (answer.status === status && answer.headers['content-type'] === 'application/json') {
        return undefined;
      }
      return `HEAD ${path} answered ${answer.status} ${answer.headers['content-type']}`;
    }
    const headers = Object.entries(answer.headers).filter(([name]) => name !== 'transfer-encoding');
    await assertMatchesOpenApi(
      new Response(answer.text, { status: answer.status, headers }),
      where,
    );
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Prints rows as an aligned two-column table. */
export function printTable(title: string, rows: readonly (readonly [string, string | number])[]) {
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = [`\n${title}`, `${'-'.repeat(width)}  ${'-'.repeat(12)}`];
  for (const [name, value] of rows) lines.push(`${name.padEnd(width)}  ${value}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
