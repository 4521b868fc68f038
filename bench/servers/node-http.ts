/**
 * The baseline: the plant workload hand-written on bare `node:http`, no framework, no
 * Request/Response. Bearer check, `Content-Type` check, 100 KiB limit (declared and counted),
 * `JSON.parse`, validation, insert-if-absent (in a `Map`, or in PostgreSQL with `DATABASE_URL`),
 * `200` JSON `{name, tag}`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  announce,
  type BenchPlant,
  benchPort,
  errorBody,
  isAuthorized,
  isJson,
  MAX_BODY_BYTES,
  readPlant,
} from './_common.ts';
import { openPlants } from './_plants.ts';

const save = await openPlants();
const JSON_TYPE = 'application/json';

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function fail(res: ServerResponse, status: number, message: string): void {
  send(res, status, errorBody(status, message));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.url !== '/plants') return fail(res, 404, 'not found');
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return fail(res, 405, 'method not allowed');
  }
  if (!isAuthorized(req.headers.authorization)) {
    res.setHeader('www-authenticate', 'Bearer realm="plant-store"');
    return fail(res, 401, 'a bearer token is required');
  }
  if (!isJson(req.headers['content-type'])) return fail(res, 415, 'unsupported media type');
  if (Number(req.headers['content-length'] ?? '-1') > MAX_BODY_BYTES) {
    res.shouldKeepAlive = false; // do not read 100 KiB+ just to throw it away
    return fail(res, 413, 'request body too large');
  }

  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      tooLarge = true;
      res.shouldKeepAlive = false;
      fail(res, 413, 'request body too large');
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (tooLarge) return;
    const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return fail(res, 400, 'body is not valid JSON');
    }
    const parsed = readPlant(value);
    if (typeof parsed === 'string') return fail(res, 400, parsed);
    const saved = save(parsed.id, parsed.plant);
    // Decided once: a `Map` answers at once, PostgreSQL later.
    if (typeof saved === 'boolean') return answer(res, saved, parsed.plant);
    saved.then(
      (stored) => answer(res, stored, parsed.plant),
      () => fail(res, 500, 'internal error'),
    );
  });
}

function answer(res: ServerResponse, stored: boolean, plant: BenchPlant): void {
  if (stored) send(res, 200, JSON.stringify(plant));
  else fail(res, 409, 'id already exists');
}

const server = createServer(handle);
server.listen(benchPort(), '127.0.0.1', () => {
  announce((server.address() as AddressInfo).port);
});
