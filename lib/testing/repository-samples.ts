import type { NewPlant } from '../types.ts';

const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;
const TWO_POW_53 = 2n ** 53n;
/** A run of consecutive ids a store might key together (the memory repository's is this long). */
const RUN = 16_384n;

/** Runs of neighbouring ids that one double cannot tell apart, or that share a split key's part. */
export const ID_RUNS: ReadonlyArray<readonly [string, readonly bigint[]]> = [
  ['at the bottom of the int64 range', [INT64_MIN, INT64_MIN + 1n, INT64_MIN + 2n]],
  ['at the top of the int64 range', [INT64_MAX, INT64_MAX - 1n, INT64_MAX - 2n]],
  ['around 2^53', [TWO_POW_53 - 1n, TWO_POW_53, TWO_POW_53 + 1n, TWO_POW_53 + 2n, TWO_POW_53 + 3n]],
  ['around -2^53', [-TWO_POW_53 + 1n, -TWO_POW_53, -TWO_POW_53 - 1n, -TWO_POW_53 - 2n]],
  ['around zero', [-1n, 0n, 1n]],
  [
    'in one run of 16,384 or at one place in another',
    [5n, 5n + RUN, 5n + 2n * RUN, 5n - RUN, -5n, -5n - RUN, RUN, -RUN, RUN - 1n, 1n - RUN],
  ],
];

/** Names and tags that must come back exactly: no normalisation, trimming or escaping. */
export const TEXTS: ReadonlyArray<Omit<NewPlant, 'id'>> = [
  { name: '🌵🪴', tag: '🌱' },
  { name: '👩🏽‍🌾 family: 👨‍👩‍👧‍👦', tag: '🏳️‍🌈' },
  { name: '多肉植物', tag: '仙人掌' },
  // Decomposed and precomposed forms differ and must not be normalised into each other.
  { name: 'e\u0301', tag: '\u00e9' },
  { name: '𝕏 𐍈 \u{10FFFF}', tag: '\uFFFE\uFFFF' },
  { name: '\uFEFFbom', tag: '\uFEFF' },
  { name: 'שלום مرحبا', tag: '\u200F\u200E' },
  { name: '', tag: '' },
  { name: ' padded ', tag: '\t\r\n' },
  { name: "Robert'); DROP TABLE plants;--", tag: '$1 \\ "quoted" %s' },
  { name: 'x'.repeat(20_000), tag: 'y'.repeat(5_000) },
];

/** Pairs of plants under one id: the second must conflict with the first. */
export const CONFLICTS: ReadonlyArray<
  readonly [string, Omit<NewPlant, 'id'>, Omit<NewPlant, 'id'>]
> = [
  ['a different name', { name: 'Fern', tag: 'green' }, { name: 'Cactus', tag: 'green' }],
  ['a different tag', { name: 'Fern', tag: 'green' }, { name: 'Fern', tag: 'blue' }],
  ['no tag where one is stored', { name: 'Fern', tag: 'green' }, { name: 'Fern' }],
  [
    "an empty tag where 'green' is stored",
    { name: 'Fern', tag: 'green' },
    { name: 'Fern', tag: '' },
  ],
  ['a tag where none is stored', { name: 'Fern' }, { name: 'Fern', tag: 'x' }],
];
