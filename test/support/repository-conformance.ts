/**
 * The repository conformance suite, written once: every `PlantRepository` must pass it.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../../lib/index.ts';

/** A fresh, empty repository for one test, and how to throw it away. */
export interface RepositoryFixture {
  /** The repository under test, holding no plant yet. */
  readonly repository: PlantRepository;
  /** The teardown, run after the test whatever its outcome. */
  readonly cleanup: () => Promise<void>;
}

/** Options of `describeRepositoryConformance`. */
export interface RepositoryConformanceOptions {
  /**
   * Whether the repository must reject with `signal.reason`, storing nothing, when its signal is
   * already aborted. When `false`, it may instead ignore the signal, but its outcome must still
   * tell the truth about what it stored.
   * @default true
   */
  readonly honoursAbortedSignal?: boolean;
}

const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;
const TWO_POW_53 = 2n ** 53n;
/** The memory repository's run of consecutive ids that share a table. */
const RUN = 16_384n;

/**
 * Registers the conformance cases for one repository under `describe(name)`.
 *
 * @param name The describe block's title, e.g. `'createMemoryRepository'`.
 * @param factory Builds a fresh, empty repository for each test.
 * @param options What the repository is held to.
 * @example
 * ```ts
 * describeRepositoryConformance('createMemoryRepository', async () => ({
 *   repository: createMemoryRepository(),
 *   cleanup: async () => {},
 * }));
 * ```
 */
export function describeRepositoryConformance(
  name: string,
  factory: () => Promise<RepositoryFixture>,
  options: RepositoryConformanceOptions = {},
): void {
  const honoursAbortedSignal = options.honoursAbortedSignal ?? true;

  /** Runs `body` with a fresh repository and always cleans up. */
  async function withRepository(body: (repository: PlantRepository) => Promise<void>) {
    const { repository, cleanup } = await factory();
    try {
      await body(repository);
    } finally {
      await cleanup();
    }
  }

  describe(name, () => {
    it('reports created when the id is free', () =>
      withRepository(async (repository) => {
        assert.deepStrictEqual(await create(repository, { id: 1n, name: 'Fern', tag: 'green' }), {
          created: true,
        });
      }));

    it('returns the stored plant when identical content is replayed', () =>
      withRepository(async (repository) => {
        await create(repository, { id: 1n, name: 'Fern', tag: 'green' });
        assert.deepStrictEqual(await create(repository, { id: 1n, name: 'Fern', tag: 'green' }), {
          created: false,
          existing: { name: 'Fern', tag: 'green' },
        });
        // A second replay is just as idempotent.
        assert.deepStrictEqual(await create(repository, { id: 1n, name: 'Fern', tag: 'green' }), {
          created: false,
          existing: { name: 'Fern', tag: 'green' },
        });
      }));

    it('returns a plant without a tag key when it was created without a tag', () =>
      withRepository(async (repository) => {
        await create(repository, { id: 2n, name: 'Moss' });
        const outcome = await create(repository, { id: 2n, name: 'Moss' });
        assert.deepStrictEqual(outcome, { created: false, existing: { name: 'Moss' } });
        assert.equal(outcome.created === false && Object.hasOwn(outcome.existing, 'tag'), false);
      }));

    it('stores only name and tag when the input carries other fields', () =>
      withRepository(async (repository) => {
        const plant = { id: 3n, name: 'Ivy', tag: 'vine', colour: 'green' } as NewPlant;
        await create(repository, plant);
        assert.deepStrictEqual(await create(repository, { id: 3n, name: 'Other' }), {
          created: false,
          existing: { name: 'Ivy', tag: 'vine' },
        });
      }));

    for (const [title, second] of [
      ['a different name', { name: 'Cactus', tag: 'green' }],
      ['a different tag', { name: 'Fern', tag: 'blue' }],
      ['no tag where one was stored', { name: 'Fern' }],
      ["an empty tag where 'green' was stored", { name: 'Fern', tag: '' }],
    ] as const) {
      it(`keeps the stored plant unchanged when ${title} arrives under its id`, () =>
        withRepository(async (repository) => {
          await create(repository, { id: 7n, name: 'Fern', tag: 'green' });
          assert.deepStrictEqual(await create(repository, { id: 7n, ...second }), {
            created: false,
            existing: { name: 'Fern', tag: 'green' },
          });
          // And the stored plant really is unchanged, not merely reported so once.
          assert.deepStrictEqual(await create(repository, { id: 7n, name: 'Fern', tag: 'green' }), {
            created: false,
            existing: { name: 'Fern', tag: 'green' },
          });
        }));
    }

    it('keeps a tagless plant unchanged when a tag arrives under its id', () =>
      withRepository(async (repository) => {
        await create(repository, { id: 8n, name: 'Fern' });
        assert.deepStrictEqual(await create(repository, { id: 8n, name: 'Fern', tag: 'x' }), {
          created: false,
          existing: { name: 'Fern' },
        });
      }));

    // Neighbouring ids that one double cannot tell apart: a repository that rounds ids through
    // a JS number stores two of them under one key and reports a conflict instead of a create.
    for (const [title, ids] of [
      ['at the bottom of the int64 range', [INT64_MIN, INT64_MIN + 1n, INT64_MIN + 2n]],
      ['at the top of the int64 range', [INT64_MAX, INT64_MAX - 1n, INT64_MAX - 2n]],
      [
        'around 2^53',
        [TWO_POW_53 - 1n, TWO_POW_53, TWO_POW_53 + 1n, TWO_POW_53 + 2n, TWO_POW_53 + 3n],
      ],
      ['around -2^53', [-TWO_POW_53 + 1n, -TWO_POW_53, -TWO_POW_53 - 1n, -TWO_POW_53 - 2n]],
      ['around zero', [-1n, 0n, 1n]],
      // A repository that splits ids into parts (the memory repository keys a safe id by its run
      // of 16,384 consecutive ids and its place in that run) must keep ids apart that share
      // either part, on both sides of zero.
      [
        'in the same run of 16,384 or at the same place in another',
        [
          5n,
          5n + RUN,
          5n + 2n * RUN,
          5n - RUN,
          -5n,
          -5n - RUN,
          RUN,
          -RUN,
          RUN - 1n,
          1n - RUN,
          RUN + 1n,
          -RUN - 1n,
          -1n,
          RUN - 5n,
          TWO_POW_53 - 1n - RUN,
          -TWO_POW_53 + 1n + RUN,
        ],
      ],
    ] as const) {
      it(`keeps every id distinct and exact when ids are ${title}`, () =>
        withRepository(async (repository) => {
          for (const id of ids) {
            assert.deepStrictEqual(
              await create(repository, { id, name: `plant ${id}` }),
              { created: true },
              `id ${id} collided with a neighbour`,
            );
          }
          for (const id of ids) {
            assert.deepStrictEqual(await create(repository, { id, name: 'probe' }), {
              created: false,
              existing: { name: `plant ${id}` },
            });
          }
        }));
    }

    it('stores names and tags exactly when they are any well-formed unicode', () =>
      withRepository(async (repository) => {
        const samples: Omit<NewPlant, 'id'>[] = [
          { name: '🌵🪴', tag: '🌱' },
          { name: '👩🏽‍🌾 family: 👨‍👩‍👧‍👦', tag: '🏳️‍🌈' },
          { name: '多肉植物', tag: '仙人掌' },
          { name: 'サボテン', tag: '선인장' },
          // Decomposed and precomposed forms differ and must not be normalised into each other.
          { name: 'e\u0301', tag: '\u00e9' },
          { name: 'Z\u0351\u036b\u0343\u036a\u0302', tag: 'a\u0308\u0304' },
          { name: '𝕏 𐍈 \u{10FFFF}', tag: '\uFFFE\uFFFF' },
          // A leading byte order mark is text like any other, not a marker to drop.
          { name: '\uFEFFbom', tag: '\uFEFF' },
          { name: 'שלום مرحبا', tag: '\u200F\u200E' },
          { name: '', tag: '' },
          { name: ' padded ', tag: '\t\r\n' },
          { name: "Robert'); DROP TABLE plants;--", tag: '$1 \\ "quoted"' },
          { name: 'x'.repeat(20_000), tag: 'y'.repeat(5_000) },
        ];
        for (const [index, plant] of samples.entries()) {
          assert.deepStrictEqual(await create(repository, { id: BigInt(100 + index), ...plant }), {
            created: true,
          });
        }
        for (const [index, plant] of samples.entries()) {
          assert.deepStrictEqual(
            await create(repository, { id: BigInt(100 + index), name: 'probe' }),
            { created: false, existing: plant },
            `sample ${index} did not round-trip`,
          );
        }
      }));

    it('tells an absent tag from an empty one when both are stored', () =>
      withRepository(async (repository) => {
        await create(repository, { id: 10n, name: 'a' });
        await create(repository, { id: 11n, name: 'a', tag: '' });
        assert.deepStrictEqual(await create(repository, { id: 10n, name: 'a', tag: '' }), {
          created: false,
          existing: { name: 'a' },
        });
        assert.deepStrictEqual(await create(repository, { id: 11n, name: 'a' }), {
          created: false,
          existing: { name: 'a', tag: '' },
        });
      }));

    it('lets exactly one create win when 50 creates of one id run at once', () =>
      withRepository(async (repository) => {
        const contenders: NewPlant[] = Array.from({ length: 50 }, (_, i) =>
          i % 2 === 0 ? { id: 42n, name: `racer ${i}` } : { id: 42n, name: 'racer', tag: `${i}` },
        );
        const outcomes = await Promise.all(contenders.map((plant) => create(repository, plant)));
        const winners = outcomes.flatMap((outcome, i) => (outcome.created ? [i] : []));
        assert.equal(winners.length, 1, `expected one winner, got ${winners.length}`);
        const winner = contenders[winners[0] as number] as NewPlant;
        const expected = toPlant(winner);
        for (const outcome of outcomes) {
          if (!outcome.created) assert.deepStrictEqual(outcome.existing, expected);
        }
        assert.deepStrictEqual(await create(repository, winner), {
          created: false,
          existing: expected,
        });
      }));

    it('creates every plant when 50 creates of distinct ids run at once', () =>
      withRepository(async (repository) => {
        const plants = Array.from({ length: 50 }, (_, i) => ({
          id: BigInt(1000 + i),
          name: `${i}`,
        }));
        const outcomes = await Promise.all(plants.map((plant) => create(repository, plant)));
        assert.deepStrictEqual(
          outcomes,
          plants.map(() => ({ created: true })),
        );
      }));

    if (honoursAbortedSignal) {
      it('rejects with the signal reason and stores nothing when the signal is already aborted', () =>
        withRepository(async (repository) => {
          const reason = new Error('client went away');
          await assert.rejects(
            // async: a synchronous repository may throw rather than reject.
            async () =>
              repository.create({ id: 5n, name: 'late' }, { signal: AbortSignal.abort(reason) }),
            (error) => error === reason,
          );
          assert.deepStrictEqual(await create(repository, { id: 5n, name: 'on time' }), {
            created: true,
          });
        }));
    } else {
      it('reports truthfully what it stored when the signal is already aborted', () =>
        withRepository(async (repository) => {
          const reason = new Error('client went away');
          let outcome: CreatePlantOutcome | undefined;
          try {
            outcome = await repository.create(
              { id: 5n, name: 'late' },
              { signal: AbortSignal.abort(reason) },
            );
          } catch (error) {
            assert.equal(error, reason, 'an abort must reject with the signal reason');
          }
          const probe = await create(repository, { id: 5n, name: 'probe' });
          if (outcome === undefined) assert.deepStrictEqual(probe, { created: true });
          else {
            assert.deepStrictEqual(outcome, { created: true });
            assert.deepStrictEqual(probe, { created: false, existing: { name: 'late' } });
          }
        }));
    }
  });
}

async function create(repository: PlantRepository, plant: NewPlant): Promise<CreatePlantOutcome> {
  return await repository.create(plant, { signal: new AbortController().signal });
}

function toPlant(plant: NewPlant): Plant {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}
