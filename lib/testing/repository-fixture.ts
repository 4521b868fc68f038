import { isOutcome, malformedAnswer } from '../operation/collaborator-answers.ts';
import type { CreatePlantOutcome, NewPlant, Plant, PlantRepository } from '../types.ts';
import { describeValue } from './describe-value.ts';
import { ConformanceError } from './report.ts';

/** A fresh, empty repository for one check, and how to throw it away afterwards. */
export interface RepositoryFixture<Principal = unknown> {
  /** The repository under test, holding no plant yet. */
  readonly repository: PlantRepository<Principal>;
  /** The teardown, run after the check whatever its outcome. */
  readonly cleanup?: (() => void | Promise<void>) | undefined;
}

/** Builds a fresh, empty repository for each check: itself, or a fixture with a cleanup. */
export type MakeRepository<Principal = unknown> = () =>
  | PlantRepository<Principal>
  | RepositoryFixture<Principal>
  | Promise<PlantRepository<Principal> | RepositoryFixture<Principal>>;

/** Options of `runRepositoryConformance` and `registerRepositoryConformance`. */
export interface RepositoryConformanceOptions<Principal = unknown> {
  /**
   * Demands that a create whose signal already fired rejects with `signal.reason`, storing nothing;
   * by default it may also answer as usual, as the contract allows, if the answer is true.
   * @default false
   */
  readonly rejectsWithSignalReason?: boolean | undefined;
  /**
   * A second instance over `first`'s store (another pool on its table); creates race on both.
   * @default undefined
   */
  readonly makeSecondInstance?:
    | ((
        first: PlantRepository<Principal>,
      ) => PlantRepository<Principal> | Promise<PlantRepository<Principal>>)
    | undefined;
  /**
   * How many creates race on one id.
   * @default 50
   */
  readonly racers?: number | undefined;
  /**
   * The longest one check may take, in milliseconds.
   * @default 10000
   */
  readonly timeoutMs?: number | undefined;
}

export const REPOSITORY_OPTION_NAMES = [
  'rejectsWithSignalReason',
  'makeSecondInstance',
  'racers',
  'timeoutMs',
] as const;

/** The rule every answer of `create` is held to. */
export const OUTCOME_SHAPE = 'outcome shape';

export async function withRepository<Principal>(
  make: MakeRepository<Principal>,
  body: (repository: PlantRepository<Principal>) => Promise<void>,
): Promise<void> {
  const made = await make();
  const fixture: RepositoryFixture<Principal> =
    typeof (made as PlantRepository<Principal>).create === 'function'
      ? { repository: made as PlantRepository<Principal> }
      : (made as RepositoryFixture<Principal>);
  try {
    await body(fixture.repository);
  } finally {
    await fixture.cleanup?.();
  }
}

/** One `create` with a live signal (and a principal when given), its answer checked for shape. */
export async function create<Principal>(
  repository: PlantRepository<Principal>,
  plant: NewPlant,
  principal?: Principal,
): Promise<CreatePlantOutcome> {
  const signal = new AbortController().signal;
  return checkedOutcome(
    await repository.create(plant, principal === undefined ? { signal } : { signal, principal }),
  );
}

export function checkedOutcome(answer: unknown): CreatePlantOutcome {
  if (isOutcome(answer)) return answer;
  throw new ConformanceError(
    OUTCOME_SHAPE,
    `${malformedAnswer('ERR_MALFORMED_OUTCOME').message}, and it answered ${describeValue(answer)}`,
  );
}

/** The plant a repository must hand back for `plant`: name and tag only, tag absent if absent. */
export function toPlant(plant: NewPlant): Plant {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

/** A missing tag may come back absent, `undefined` or `null` (as SQL has it); `''` only as `''`. */
export function samePlant(actual: Plant, expected: Plant): boolean {
  const tag = actual.tag ?? undefined;
  return actual.name === expected.name && tag === (expected.tag ?? undefined);
}

export function expectCreated(rule: string, outcome: CreatePlantOutcome, what: string): void {
  if (outcome.created) return;
  throw new ConformanceError(
    rule,
    `${what} answered ${describeValue(outcome)}; expected { created: true }`,
  );
}

export function expectExisting(
  rule: string,
  outcome: CreatePlantOutcome,
  expected: Plant,
  what: string,
): void {
  if (!outcome.created && samePlant(outcome.existing, expected)) return;
  throw new ConformanceError(
    rule,
    `${what} answered ${describeValue(outcome)}; expected { created: false, existing: ${describeValue(expected)} }`,
  );
}

/** Races `racers` creates of `id` with different contents, alternating between `a` and `b`. */
export async function race<Principal>(
  a: PlantRepository<Principal>,
  b: PlantRepository<Principal>,
  racers: number,
  id: bigint,
  rule = 'race',
): Promise<void> {
  const contenders: NewPlant[] = Array.from({ length: racers }, (_, i) =>
    i % 2 === 0 ? { id, name: `racer ${i}` } : { id, name: 'racer', tag: `${i}` },
  );
  const outcomes = await Promise.all(
    contenders.map((plant, i) => create(i % 2 === 0 ? a : b, plant)),
  );
  const winners = outcomes.flatMap((outcome, i) => (outcome.created ? [i] : []));
  if (winners.length !== 1) {
    throw new ConformanceError(
      rule,
      `${winners.length} of ${racers} concurrent creates of id ${id} answered { created: true }; exactly one must win`,
    );
  }
  const winner = toPlant(contenders[winners[0] as number] as NewPlant);
  for (const [i, outcome] of outcomes.entries()) {
    if (!outcome.created) expectExisting(rule, outcome, winner, `loser ${i}`);
  }
  expectExisting(
    rule,
    await create(a, { id, name: 'probe' }),
    winner as Plant,
    'a read back after the race',
  );
}
