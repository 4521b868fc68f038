import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as v from 'valibot';
import { INT64_MAX, INT64_MIN, type NewPlant, NewPlantSchema } from '../../lib/index.ts';
import { plantRequest, send, testStore } from '../support/fakes.ts';

/** Spellings of one integer as a JSON number literal, all of which denote exactly `n`. */
function spellings(n: bigint): fc.Arbitrary<string> {
  const sign = n < 0n ? '-' : '';
  const digits = (n < 0n ? -n : n).toString();
  return fc.oneof(
    fc.constant(n.toString()),
    fc.integer({ min: 1, max: 4 }).map((zeros) => `${n}.${'0'.repeat(zeros)}`),
    // Shift the point right and compensate with a negative exponent: 12 → 1200e-2.
    fc
      .integer({ min: 1, max: 25 })
      .map((shift) =>
        n === 0n ? `0.${'0'.repeat(shift)}e${shift}` : `${n}${'0'.repeat(shift)}e-${shift}`,
      ),
    // Scientific notation: 1234 → 1.234e3 (or 1234e0 for one digit).
    fc
      .constantFrom('e', 'E', 'e+')
      .map((e) =>
        digits.length === 1
          ? `${n}${e}0`
          : `${sign}${digits[0]}.${digits.slice(1)}${e}${digits.length - 1}`,
      ),
  );
}

/** Whether a value is plant text: a well-formed string without U+0000. */
function isPlantText(value: unknown): boolean {
  return typeof value === 'string' && value.isWellFormed() && !value.includes('\0');
}

/** Plant text: any well-formed string without U+0000, the empty string included. */
const plantText = fc
  .string({
    unit: fc.oneof(fc.constant('grapheme'), fc.constant('binary')) as never,
    maxLength: 30,
  })
  .filter(isPlantText);

/** Any string, lone surrogates and U+0000 included. */
const anyText = fc.string({ unit: 'binary', maxLength: 20 });

function storedPlant(repository: ReturnType<typeof testStore>['repository']): NewPlant {
  assert.equal(repository.create.mock.callCount(), 1);
  return repository.create.mock.calls[0]?.arguments[0] as NewPlant;
}

describe('handleCreatePlant properties', () => {
  it('keeps every int64 exactly, however the literal spells it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .bigInt({ min: INT64_MIN, max: INT64_MAX })
          .chain((n) => fc.tuple(fc.constant(n), spellings(n))),
        async ([id, literal]) => {
          const { store, repository } = testStore();
          const response = await send(
            store.handleCreatePlant,
            plantRequest(`{"id":${literal},"name":"p"}`),
          );
          assert.equal(response.status, 200, literal);
          assert.equal(storedPlant(repository).id, id, literal);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses every integer just outside the int64 range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.bigInt({ min: INT64_MAX + 1n, max: INT64_MAX * 1000n }),
          fc.bigInt({ min: INT64_MIN * 1000n, max: INT64_MIN - 1n }),
        ),
        async (id) => {
          const { store, repository } = testStore();
          const response = await send(
            store.handleCreatePlant,
            plantRequest(`{"id":${id},"name":"p"}`),
          );
          assert.equal(response.status, 400);
          assert.equal(repository.create.mock.callCount(), 0);
        },
      ),
    );
  });

  it('agrees with JSON.parse on everything but id for random objects', async () => {
    // Members as [key, JSON text, exact id], so the id member can carry a literal
    // JSON.stringify never writes. Nested objects hold their own "id" keys, which must not count.
    type Member = readonly [key: string, text: string, id?: bigint];
    const member: fc.Arbitrary<Member> = fc.oneof(
      fc
        .tuple(fc.constantFrom('name', 'tag'), fc.oneof(plantText, anyText, fc.jsonValue()))
        .map(([key, value]): Member => [key, JSON.stringify(value)]),
      fc
        .tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }))
        .map(([key, value]): Member => [key, JSON.stringify(value ?? null)]),
      fc
        .jsonValue({ maxDepth: 2 })
        .map((value): Member => [
          'nested',
          JSON.stringify({ id: 1.5, value, list: [{ id: 2.5 }] }),
        ]),
      fc
        .bigInt({ min: INT64_MIN, max: INT64_MAX })
        .chain((n) => spellings(n).map((literal): Member => ['id', literal, n])),
    );
    const whitespace = fc.constantFrom('', ' ', '\n\t ');
    await fc.assert(
      fc.asyncProperty(fc.array(member, { maxLength: 8 }), whitespace, async (members, space) => {
        const text = `{${members
          .map(([key, value]) => `${space}${JSON.stringify(key)}${space}:${space}${value}`)
          .join(',')}${space}}`;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const lastId = members.findLast(([key]) => key === 'id')?.[2];
        const valid =
          lastId !== undefined &&
          isPlantText(parsed.name) &&
          (!Object.hasOwn(parsed, 'tag') || isPlantText(parsed.tag));
        const { store, repository } = testStore();
        const response = await send(store.handleCreatePlant, plantRequest(text));
        if (!valid) {
          assert.equal(response.status, 400, text);
          assert.equal(repository.create.mock.callCount(), 0);
          return;
        }
        assert.equal(response.status, 200, text);
        const expected: Record<string, unknown> = { id: lastId, name: parsed.name };
        if (Object.hasOwn(parsed, 'tag')) expected.tag = parsed.tag;
        assert.deepEqual(storedPlant(repository), expected, text);
        delete expected.id;
        assert.deepEqual(response.body, expected, text);
      }),
      { numRuns: 400 },
    );
  });

  it('accepts and refuses exactly as NewPlantSchema does, with its first issue as the message', async () => {
    // Each member as [JSON text, the value valibot is given]: an integer literal is given as the
    // exact bigint the store reads from it, anything else as JSON.parse reads it.
    type Value = readonly [text: string, value: unknown];
    const json = (value: unknown): Value => [JSON.stringify(value), value];
    // A number JSON.stringify writes is an integer literal when its value is an integer, and its
    // digits are exact below 10^21; past that it is out of range either way.
    const asId = (value: unknown): unknown =>
      typeof value === 'number' && Number.isInteger(value)
        ? BigInt(Math.abs(value) < 1e21 ? JSON.stringify(value) : value)
        : value;
    const id = fc.oneof(
      fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map((n): Value => [`${n}`, n]),
      fc
        .oneof(fc.bigInt({ min: INT64_MAX + 1n }), fc.bigInt({ max: INT64_MIN - 1n }))
        .map((n): Value => [`${n}`, n]),
      fc
        .oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.jsonValue())
        .map((value): Value => [JSON.stringify(value), asId(value)]),
    );
    // The edges of the text rules, alone and inside other text.
    const edge = fc.constantFrom('', '\0', '\uD800', '\uDC00', '\uD83C\uDF3F');
    const edged = fc.tuple(plantText, edge, plantText).map((parts) => parts.join(''));
    const text = fc.oneof(plantText, edged, anyText, fc.jsonValue()).map(json);
    const absent = fc.constant(undefined);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id: fc.oneof(id, absent),
          name: fc.oneof(text, absent),
          tag: fc.oneof(text, absent),
        }),
        async (members) => {
          const present = Object.entries(members).filter(
            (entry): entry is [string, Value] => entry[1] !== undefined,
          );
          const body = `{${present.map(([key, [json]]) => `"${key}":${json}`).join(',')}}`;
          const candidate = Object.fromEntries(present.map(([key, [, value]]) => [key, value]));
          const expected = v.safeParse(NewPlantSchema, candidate);
          const { store, repository } = testStore();
          const response = await send(store.handleCreatePlant, plantRequest(body));
          if (expected.success) {
            assert.equal(response.status, 200, body);
            assert.deepEqual(storedPlant(repository), expected.output, body);
            return;
          }
          const issue = expected.issues[0];
          assert.equal(response.status, 400, body);
          assert.equal(repository.create.mock.callCount(), 0);
          assert.deepEqual(
            response.body,
            { error: 400, message: `${issue.path?.[0]?.key ?? 'body'} ${issue.message}` },
            body,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads a leading id exactly, and a later "id" member still wins', async () => {
    // `{"id":<a plain integer>,` is the spelling the reader takes without a scan. Whatever
    // follows must not fool it: a later "id" member (also spelled with escapes) is the id, a
    // nested one or a string that reads "id" is not.
    type Member = readonly [text: string, id?: bigint];
    const shortId = fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n });
    // Every length from 1 to 19 digits alike: up to 15 a double holds the id exactly, past
    // that only the text does.
    const anyId = fc
      .tuple(fc.integer({ min: 1, max: 19 }), fc.boolean())
      .chain(([digits, negative]) =>
        fc
          .bigInt({ min: 10n ** BigInt(digits - 1), max: 10n ** BigInt(digits) - 1n })
          .map((n) => (negative ? -n : n)),
      )
      .filter((n) => n >= INT64_MIN && n <= INT64_MAX);
    const member: fc.Arbitrary<Member> = fc.oneof(
      fc
        .tuple(fc.constantFrom('"id"', '"\\u0069d"', '"i\\u0064"'), anyId)
        .map(([key, n]): Member => [`${key}:${n}`, n]),
      fc
        .oneof(plantText, fc.constantFrom('id', '"id"', '\\', 'a"id":1'))
        .map((text): Member => [`"tag":${JSON.stringify(text)}`]),
      shortId.map((n): Member => [`"nested":{"id":${n},"list":[{"id":1}]}`]),
      fc.constantFrom<Member>(['"id\\"":1'], ['"x":"id"'], ['"ids":2']),
    );
    await fc.assert(
      fc.asyncProperty(anyId, fc.array(member, { maxLength: 4 }), async (first, members) => {
        const text = `{"id":${first},${members.map(([member]) => `${member},`).join('')}"name":"p"}`;
        const expected = members.findLast(([, id]) => id !== undefined)?.[1] ?? first;
        const { store, repository } = testStore();
        const response = await send(store.handleCreatePlant, plantRequest(text));
        assert.equal(response.status, 200, text);
        assert.equal(storedPlant(repository).id, expected, text);
      }),
      { numRuns: 500 },
    );
  });

  it('answers with the name and tag written exactly as JSON.stringify writes them', async () => {
    const text = fc.oneof(plantText, fc.constantFrom('"', '\\', '\n\u001f', '\u007f\u2028'));
    await fc.assert(
      fc.asyncProperty(text, fc.option(text, { nil: undefined }), async (name, tag) => {
        const plant = tag === undefined ? { name } : { name, tag };
        const { store } = testStore();
        const response = await store.handleCreatePlant(
          plantRequest(JSON.stringify({ id: 1, ...plant })),
        );
        assert.equal(response.status, 200);
        assert.equal(await response.text(), JSON.stringify(plant));
      }),
      { numRuns: 300 },
    );
  });

  it('never answers 5xx to garbage, and stores nothing unless it answers 200', async () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.json({ maxDepth: 4 }),
      fc
        .json()
        .chain((text) =>
          fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut)),
        ),
      fc.constantFrom('{"id":1,"name":"a"}', '{"id":1e999,"name":"a"}', '{"id":-0,"name":""}'),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/json; charset=iso-8859-1',
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const { store, repository, onError } = testStore({ maxBodyBytes: 150 });
        const response = await send(
          store.handleCreatePlant,
          plantRequest(payload, { 'content-type': type }),
        );
        assert.ok(response.status < 500, `status ${response.status}`);
        assert.equal(repository.create.mock.callCount(), response.status === 200 ? 1 : 0);
        assert.equal(onError.mock.callCount(), 0);
      }),
      { numRuns: 500 },
    );
  });
});
