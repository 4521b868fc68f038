/**
 * The fuzz: `npm run fuzz -- [--runs 100000] [--seed n] [--path p] [--wire-every 10]`.
 *
 * fast-check generates requests (methods, paths, Authorization and Content-Type variants,
 * Content-Length lies, bodies of random bytes, JSON with edge numbers, deep nesting, huge
 * strings, `__proto__` and `constructor` keys, streamed in random chunks) and feeds them to
 * `store.fetch`; every `--wire-every`-th one also goes as raw bytes over a socket to the same
 * store behind `serve`, where a Content-Length lie is a real one. For every request:
 *
 * - the answer is not a 5xx and conforms to the OpenAPI document (`test/_openapi.ts`);
 * - nothing is stored unless the answer was 200, and a 200 answers exactly the stored plant;
 * - a well-formed create of a free id is answered 200 (so the store cannot pass by refusing all).
 *
 * And over the whole run, nothing reaches `onError`: what a client sends, or a client that goes
 * away mid-request, is never a fault of the server.
 *
 * The seed is printed; a failure prints the seed and path that replay it (`--seed`, `--path`).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import fc from 'fast-check';
import {
  createPlantStore,
  createStaticTokenVerifier,
  type NewPlant,
  type Plant,
  type PlantRepository,
} from '../lib/index.ts';
import { serve } from '../lib/node.ts';
import { parseRawResponse } from '../test/support/node-helpers.ts';
import { type HttpAnswer, openApiProblem, parseFlags, printTable } from './_shared.ts';

const USAGE = 'npm run fuzz -- [--runs n=100000] [--seed n] [--path p] [--wire-every n=10]';
const flags = parseFlags(
  process.argv.slice(2),
  { runs: 100_000, seed: Math.floor(Math.random() * 2 ** 31), path: '', 'wire-every': 10 },
  USAGE,
);
const TOKEN = 'fuzz-token.0123456789~+/=';
const MAX_BODY = 102_400;

// ---------------------------------------------------------------------------------------------
// The store under test, over a repository that records what it is asked and holds

const plants = new Map<bigint, Plant>();
let created = 0;
let calls: NewPlant[] = [];
const repository: PlantRepository = {
  async create(plant, { signal }) {
    signal.throwIfAborted();
    calls.push(plant);
    const existing = plants.get(plant.id);
    if (existing !== undefined) return { created: false, existing };
    plants.set(
      plant.id,
      plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag },
    );
    created++;
    return { created: true };
  },
};
const errors: unknown[] = [];
const store = createPlantStore({
  repository,
  verifier: createStaticTokenVerifier([TOKEN]),
  onError: (error) => errors.push(error),
});

// ---------------------------------------------------------------------------------------------
// The generators

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** `true`: the real length; a string: that value, true or not; `undefined`: none. */
  readonly contentLength: true | string | undefined;
  readonly extraHeaders: readonly (readonly [string, string])[];
  readonly body: Uint8Array | undefined;
  /** Where the body is cut into chunks of a stream (empty: sent whole). */
  readonly cuts: readonly number[];
  /** A well-formed create of this plant, when the request is one: it must be answered 200 or 409. */
  readonly plant: { readonly id: bigint; readonly name: string; readonly tag?: string } | undefined;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
const headerValue = printable.map((s) => s.trim());

const method = fc.oneof(
  { weight: 12, arbitrary: fc.constant('POST') },
  {
    weight: 4,
    arbitrary: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'post', 'Post'),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/) },
);
const path = fc.oneof(
  { weight: 12, arbitrary: fc.constant('/plants') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '/plants?x=1',
      '/plants/',
      '/PLANTS',
      '/plants/1',
      '//plants',
      '/plants/../plants',
      '/%70lants',
      '/openapi.json',
      '/openapi.json?x',
      '/',
      '/plants;x',
      '/pl%00ants',
    ),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)) },
);
const authorization = fc.oneof(
  { weight: 12, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      `bearer ${TOKEN}`,
      `BEARER    ${TOKEN}`,
      `Bearer\t${TOKEN}`,
      `Bearer ${TOKEN} `,
      `Bearer ${TOKEN} x`,
      `Bearer ${TOKEN}x`,
      'Bearer',
      'Bearer ',
      'Bearer wrong-token',
      'Basic dXNlcjpwYXNz',
      `Token ${TOKEN}`,
      `Bearer =${TOKEN}`,
      '',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);
const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'APPLICATION/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; foo=bar',
      'application/json;',
      'application/jsonx',
      'application/json, text/plain',
      'text/plain',
      'text/json',
      'multipart/form-data; boundary=x',
      '',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);
const contentLength = fc.oneof(
  { weight: 10, arbitrary: fc.constant<true | undefined>(true) },
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.nat({ max: 300_000 }).map(String),
      fc.constantFrom(
        '0',
        '-1',
        'abc',
        '1e3',
        ' 10',
        '99999999999999999999',
        '102400',
        '102401',
        '1, 1',
      ),
    ),
  },
);
const extraHeaders = fc.array(
  fc.tuple(
    fc.constantFrom('x-fuzz', 'accept', 'x-forwarded-for', 'cookie', 'expect', 'te'),
    headerValue,
  ),
  { maxLength: 3 },
);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** An id inside int64 and a literal for it: how a well-formed create spells its id. */
const goodId = fc
  .oneof(
    fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    fc.constantFrom(0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, INT64_MIN, INT64_MAX),
  )
  .chain((id) =>
    fc.tuple(
      fc.constant(id),
      fc.constantFrom(
        `${id}`,
        `${id}.0`,
        `${id}e0`,
        id === 0n ? '-0' : `${id}0e-1`,
        `${id}.000`,
        `${id}E+0`,
      ),
    ),
  );
/** Literals that are not an int64 integer, or not a number at all. */
const badIdLiteral = fc.constantFrom(
  '1.5',
  '1.0000000000000001',
  '9223372036854775808',
  '-9223372036854775809',
  '1e400',
  '-1e-400',
  '"1"',
  'null',
  'true',
  '[]',
  '{}',
  '01',
  '+1',
  'NaN',
  'Infinity',
  '0x10',
  '1_000',
  '.5',
  '1.',
  '-',
);
/** Strings that are stored exactly: well-formed Unicode without U+0000. */
const goodString = fc
  .oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '\u{1F33F}', '"\\/\b\f\n\r\t', '\uFEFF', '\u2028'),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 102_380 }).map((n) => 'x'.repeat(n)) },
  )
  .filter((s) => !s.includes('\u0000'));
/** Any code units, lone surrogates and U+0000 included. */
const anyString = fc.string({ unit: 'binary', maxLength: 30 });
const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 50_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);
const extraField = fc.oneof(
  fc.tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x'),
    fc.json(),
  ),
  fc.tuple(fc.constant('__proto__'), fc.constant('{"name":"polluted","tag":"polluted"}')),
  fc.tuple(fc.constant('constructor'), fc.constant('{"prototype":{"name":"polluted"}}')),
  fc.tuple(fc.constantFrom('nested', '__proto__'), deepNesting),
);

function field(name: string, json: string): string {
  return `${JSON.stringify(name)}:${json}`;
}

/** A JSON text of a NewPlant, well-formed or not, and the plant when it is a well-formed one. */
const plantBody = fc
  .record({
    id: fc.oneof(
      { weight: 5, arbitrary: goodId.map(([id, literal]) => ({ id, literal })) },
      {
        weight: 1,
        arbitrary: badIdLiteral.map((literal) => ({ id: undefined, literal })),
      },
    ),
    name: fc.oneof(
      {
        weight: 6,
        arbitrary: goodString.map((s) => ({ ok: true, json: JSON.stringify(s), value: s })),
      },
      {
        weight: 1,
        arbitrary: fc.oneof(
          anyString.map((s) => ({
            ok: false,
            json: `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
            value: s,
          })),
          fc
            .constantFrom('null', '1', '[]', '{}', 'true')
            .map((json) => ({ ok: false, json, value: '' })),
        ),
      },
    ),
    tag: fc.option(goodString, { nil: undefined }),
    omit: fc.constantFrom<'none' | 'id' | 'name'>('none', 'none', 'none', 'none', 'id', 'name'),
    extras: fc.array(extraField, { maxLength: 2 }),
    duplicate: fc.boolean(),
    bom: fc.boolean(),
  })
  .map(({ id, name, tag, omit, extras, duplicate, bom }) => {
    const fields: string[] = [];
    if (duplicate) fields.push(field('id', '"overridden"'), field('name', '0'));
    if (omit !== 'id') fields.push(field('id', id.literal));
    if (omit !== 'name') fields.push(field('name', name.json));
    if (tag !== undefined) fields.push(field('tag', JSON.stringify(tag)));
    for (const [key, json] of extras)
      fields.push(field(key, typeof json === 'string' ? json : JSON.stringify(json)));
    const text = `${bom ? '\uFEFF' : ''}{${fields.join(',')}}`;
    const nameOk =
      name.ok && [...name.value].every((c) => c.length === 2 || !/[\uD800-\uDFFF]/.test(c));
    const wellFormed = omit === 'none' && id.id !== undefined && nameOk;
    const plant =
      wellFormed && id.id !== undefined
        ? { id: id.id, name: name.value, ...(tag === undefined ? {} : { tag }) }
        : undefined;
    return { bytes: new TextEncoder().encode(text), plant };
  });

const body = fc.oneof(
  { weight: 10, arbitrary: plantBody },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.uint8Array({ maxLength: 300 }),
        fc.json().map((j) => new TextEncoder().encode(j)),
        fc.string({ unit: 'binary', maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
        deepNesting.map((s) => new TextEncoder().encode(s)),
        fc
          .constantFrom(
            '',
            '{}',
            '[]',
            'null',
            '{"id":1,"name":"a"',
            '{"id":1,"name":"\\ud800"}',
            '{"id":1,"name":"a\\u0000"}',
          )
          .map((s) => new TextEncoder().encode(s)),
        fc
          .integer({ min: MAX_BODY - 20, max: MAX_BODY + 20 })
          .map((n) => new Uint8Array(n).fill(0x20)),
        fc
          .tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.nat({ max: 40 }))
          .map(([garbage, at]) => {
            const text = new TextEncoder().encode(
              '{"id":1,"name":"ok ok ok ok ok ok ok ok ok ok ok ok"}',
            );
            const cut = Math.min(at, text.length);
            return Uint8Array.from([...text.subarray(0, cut), ...garbage, ...text.subarray(cut)]);
          }),
      )
      .map((bytes) => ({ bytes, plant: undefined })),
  },
  { weight: 1, arbitrary: fc.constant({ bytes: undefined, plant: undefined }) },
);

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method,
    path,
    authorization,
    contentType,
    contentLength,
    extraHeaders,
    body,
    cuts: fc.array(fc.nat({ max: 200_000 }), { maxLength: 4 }),
  })
  .map(({ body: generated, ...rest }) => {
    const canonical =
      rest.method === 'POST' &&
      (rest.path === '/plants' || rest.path === '/plants?x=1') &&
      rest.authorization === `Bearer ${TOKEN}` &&
      rest.contentType === 'application/json' &&
      (rest.contentLength === true || rest.contentLength === undefined) &&
      generated.bytes !== undefined &&
      generated.bytes.length <= MAX_BODY;
    return { ...rest, body: generated.bytes, plant: canonical ? generated.plant : undefined };
  });

// ---------------------------------------------------------------------------------------------
// One request, in process and on the wire

const tally = {
  requests: 0,
  wire: 0,
  unrepresentable: 0,
  byStatus: new Map<number, number>(),
  created: 0,
  wellFormedCreates: 0,
};

function headerList(request: FuzzRequest, length: number | undefined): [string, string][] {
  const headers: [string, string][] = [];
  if (request.authorization !== undefined) headers.push(['authorization', request.authorization]);
  if (request.contentType !== undefined) headers.push(['content-type', request.contentType]);
  if (request.contentLength === true && length !== undefined)
    headers.push(['content-length', String(length)]);
  else if (typeof request.contentLength === 'string')
    headers.push(['content-length', request.contentLength]);
  for (const [name, value] of request.extraHeaders) headers.push([name, value]);
  return headers;
}

function toRequest(request: FuzzRequest): Request | undefined {
  const noBody = ['GET', 'HEAD'].includes(request.method.toUpperCase());
  const bytes = noBody ? undefined : request.body;
  let body: BodyInit | undefined = bytes as Uint8Array<ArrayBuffer> | undefined;
  if (bytes !== undefined && request.cuts.length > 0) {
    const points = [...new Set(request.cuts.map((cut) => cut % (bytes.length + 1)))].sort(
      (a, b) => a - b,
    );
    const pieces = [0, ...points, bytes.length].flatMap((start, i, all) =>
      i + 1 < all.length ? [bytes.subarray(start, all[i + 1])] : [],
    );
    body = new ReadableStream({
      pull(controller) {
        const piece = pieces.shift();
        if (piece === undefined) controller.close();
        else controller.enqueue(piece);
      },
    });
  }
  try {
    return new Request(`http://127.0.0.1${request.path}`, {
      method: request.method,
      headers: headerList(request, bytes?.length),
      ...(body === undefined ? {} : { body, duplex: 'half' }),
    } as RequestInit);
  } catch {
    // Not a request fetch can make (a forbidden method, a header value it refuses).
    return undefined;
  }
}

/** The checks every answer must pass, whichever way the request came. */
async function checkAnswer(
  request: FuzzRequest,
  methodSeen: string,
  pathSeen: string,
  answer: HttpAnswer,
  before: ReturnType<typeof snapshot>,
): Promise<void> {
  tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
  assert.ok(
    answer.status < 500,
    `a ${answer.status}: ${answer.text.slice(0, 300)}; errors: ${errors.map(String).join('; ')}`,
  );
  const problem = await openApiProblem(methodSeen, pathSeen, answer);
  assert.equal(problem, undefined, problem);
  if (answer.status !== 200 || methodSeen !== 'POST') {
    assert.equal(created, before.created, `a ${answer.status} stored a plant`);
    assert.equal(plants.size, before.size, `a ${answer.status} changed the store`);
  } else if (new URL(`http://x${pathSeen}`).pathname === '/plants') {
    // One call, and the answer is the plant the store holds under its id.
    assert.equal(calls.length, 1, 'a 200 without exactly one repository call');
    const call = calls[0] as NewPlant;
    const held = plants.get(call.id);
    assert.deepEqual(
      JSON.parse(answer.text),
      { ...held },
      'the 200 does not answer the stored plant',
    );
    if (request.plant !== undefined)
      assert.equal(call.id, request.plant.id, 'the id was not read exactly');
  }
  if (request.plant !== undefined) {
    // A well-formed create: stored (200) unless its id holds another plant (409).
    tally.wellFormedCreates++;
    const held = before.heldForPlant;
    const same =
      held !== undefined && held.name === request.plant.name && held.tag === request.plant.tag;
    const expected = held === undefined || same ? 200 : 409;
    assert.equal(
      answer.status,
      expected,
      `a well-formed create answered ${answer.status}: ${answer.text.slice(0, 300)}`,
    );
  }
}

async function throughFetch(request: FuzzRequest): Promise<void> {
  const native = toRequest(request);
  if (native === undefined) {
    tally.unrepresentable++;
    return;
  }
  tally.requests++;
  const before = snapshot(request);
  const response = await store.fetch(native);
  const text =
    request.method.toUpperCase() === 'HEAD' && response.body === null ? '' : await response.text();
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  const pathSeen = new URL(native.url).pathname + new URL(native.url).search;
  await checkAnswer(
    request,
    native.method,
    pathSeen,
    { status: response.status, headers, text },
    before,
  );
}

function snapshot(request: FuzzRequest) {
  calls = [];
  const heldForPlant = request.plant === undefined ? undefined : plants.get(request.plant.id);
  return { created, size: plants.size, heldForPlant };
}

let wirePort = 0;

/** The same request as raw bytes on its own connection; a Content-Length lie is sent as is. */
async function overTheWire(request: FuzzRequest): Promise<void> {
  const target = /^[\x21-\x7e]+$/.test(request.path) ? request.path : '/plants';
  const bytes = request.body;
  const headers = headerList(request, bytes?.length);
  const chunked = bytes !== undefined && request.contentLength === undefined;
  let head = `${request.method} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`;
  for (const [name, value] of headers) {
    head += `${name}: ${value}\r\n`;
  }
  if (chunked) head += 'transfer-encoding: chunked\r\n';
  head += '\r\n';
  const payload = [Buffer.from(head, 'latin1')];
  if (bytes !== undefined) {
    if (chunked) {
      if (bytes.length > 0)
        payload.push(
          Buffer.from(`${bytes.length.toString(16)}\r\n`),
          Buffer.from(bytes),
          Buffer.from('\r\n'),
        );
      payload.push(Buffer.from('0\r\n\r\n'));
    } else payload.push(Buffer.from(bytes));
  }
  tally.wire++;
  const before = snapshot(request);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(wirePort, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer and no close within 15 s on the wire'));
    }, 15_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    // Half-close after the bytes, so a Content-Length larger than the body ends, not hangs.
    socket.end(Buffer.concat(payload));
  });
  const lies = typeof request.contentLength === 'string';
  // Skip interim answers (100 Continue to an Expect: 100-continue).
  const final = received.toString('latin1').replace(/^(?:HTTP\/1\.1 1\d\d [^\r]*\r\n\r\n)+/, '');
  if (final === '') {
    // Only a request whose body never arrived whole may go unanswered (the client "left").
    assert.ok(lies, `no answer on the wire to ${head.split('\r\n')[0]}`);
    assert.equal(created, before.created, 'an unanswered request stored a plant');
    return;
  }
  const raw = parseRawResponse(final);
  const text = Buffer.from(raw.body, 'latin1').toString('utf8');
  const answer: HttpAnswer = {
    status: raw.status,
    headers: Object.fromEntries([...raw.headers].filter(([name]) => name !== 'transfer-encoding')),
    text,
  };
  // The wire adds its own answers (400 malformed, 431) for what fetch never sees.
  // What node's parser refuses (an unknown or lower-case method, a Content-Length that is not a
  // number) gets serve's raw 400 before any route: the plain Error body, written by hand (so
  // without the Date header every routed answer has).
  const refusedByParser = answer.status === 400 && answer.headers.date === undefined;
  await checkAnswer(
    { ...request, plant: lies ? undefined : request.plant },
    // The parser answers before any method is known, HEAD included: a full Error body.
    refusedByParser ? 'POST' : request.method,
    refusedByParser ? '/(refused-by-the-parser)' : target,
    answer,
    before,
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const handle = await serve({
    fetch: store.fetch,
    port: 0,
    onError: (error) => errors.push(error),
  });
  wirePort = handle.port;
  const seed = flags.seed;
  process.stdout.write(
    `fuzz: ${flags.runs} requests, seed ${seed}, every ${flags['wire-every']}th also on the wire\n`,
  );
  const started = Date.now();
  let run = 0;
  let failure: unknown;
  try {
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        run++;
        await throughFetch(request);
        if (flags['wire-every'] > 0 && run % flags['wire-every'] === 0) await overTheWire(request);
      }),
      {
        numRuns: flags.runs,
        seed,
        ...(flags.path === '' ? {} : { path: flags.path }),
        endOnFailure: false,
      },
    );
  } catch (error) {
    failure = error;
  } finally {
    await handle.close();
  }
  // Checked once at the end: a wire request's report may come after its answer.
  if (failure === undefined && errors.length > 0) {
    failure = new Error(
      `reported to onError, for requests a client sent: ${errors.map((error) => String(error)).join('; ')}`,
    );
  }
  const seconds = (Date.now() - started) / 1000;
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`);
  printTable('fuzz summary', [
    ['seed', seed],
    ['generated requests', run],
    ['through store.fetch', tally.requests],
    ['also on the wire (serve)', tally.wire],
    ['not representable as a Request', tally.unrepresentable],
    ['statuses', statuses.join(', ')],
    ['well-formed creates checked', tally.wellFormedCreates],
    ['plants stored (each answered 200)', created],
    ['errors reported to onError', errors.length],
    ['time', `${seconds.toFixed(1)} s`],
    ['verdict', failure === undefined ? 'PASS' : 'FAIL'],
  ]);
  if (failure !== undefined) {
    const cause = failure instanceof Error ? failure.cause : undefined;
    process.stdout.write(`\n${failure instanceof Error ? failure.message : String(failure)}\n`);
    if (cause !== undefined) {
      process.stdout.write(`\ncause: ${cause instanceof Error ? cause.message : String(cause)}\n`);
    }
    process.stdout.write(
      `\nreproduce: npm run fuzz -- --seed ${seed} --runs ${flags.runs} (add --path from the report above to replay the counterexample alone)\n`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `fuzz: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
