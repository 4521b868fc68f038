// One check per rule of `PlantRepository.create`; every answer is also held to the outcome's shape.

import type { NewPlant, PlantRepository } from '../types.ts';
import { describeValue } from './describe-value.ts';
import { ConformanceError, type ConformanceCheck } from './report.ts';
import {
  checkedOutcome,
  create,
  expectCreated,
  expectExisting,
  type MakeRepository,
  type RepositoryConformanceOptions,
  toPlant,
  race,
  withRepository,
} from './repository-fixture.ts';
import { CONFLICTS, ID_RUNS, TEXTS } from './repository-samples.ts';

/** The checks for one repository factory, in the order they run. */
export function repositoryChecks<Principal>(
  make: MakeRepository<Principal>,
  options: RepositoryConformanceOptions<Principal>,
): ConformanceCheck[] {
  const checks: ConformanceCheck[] = [];
  const add = (name: string, body: (repository: PlantRepository<Principal>) => Promise<void>) => {
    checks.push({ name, run: () => withRepository(make, body) });
  };
  const racers = options.racers ?? 50;

  add('created: answers { created: true } when the id is free', async (r) => {
    expectCreated(
      'created',
      await create(r, { id: 1n, name: 'Fern', tag: 'green' }),
      'a first create',
    );
  });

  add('replay: hands back the stored plant when identical content is replayed', async (r) => {
    const fern = { id: 1n, name: 'Fern', tag: 'green' };
    await create(r, fern);
    expectExisting('replay', await create(r, fern), toPlant(fern), 'a replay');
    expectExisting('replay', await create(r, fern), toPlant(fern), 'a second replay');
  });

  add(
    'tag: hands back no tag (absent, undefined or null) when the plant was created without one',
    async (r) => {
      await create(r, { id: 2n, name: 'Moss' });
      const outcome = await create(r, { id: 2n, name: 'Moss' });
      expectExisting('tag', outcome, { name: 'Moss' }, 'a replay of a tagless plant');
    },
  );

  add('tag: tells an absent tag from an empty one when both are stored', async (r) => {
    await create(r, { id: 10n, name: 'a' });
    await create(r, { id: 11n, name: 'a', tag: '' });
    expectExisting(
      'tag',
      await create(r, { id: 10n, name: 'a', tag: '' }),
      { name: 'a' },
      'id 10 (no tag)',
    );
    expectExisting(
      'tag',
      await create(r, { id: 11n, name: 'a' }),
      { name: 'a', tag: '' },
      "id 11 (tag '')",
    );
  });

  add('fields: stores only name and tag when the plant carries other fields', async (r) => {
    await create(r, { id: 3n, name: 'Ivy', tag: 'vine', colour: 'green' } as NewPlant);
    const outcome = await create(r, { id: 3n, name: 'Other' });
    expectExisting('fields', outcome, { name: 'Ivy', tag: 'vine' }, 'a create under the same id');
    if (!outcome.created && Object.hasOwn(outcome.existing, 'colour')) {
      throw new ConformanceError(
        'fields',
        `the stored plant kept another field: ${describeValue(outcome.existing)}`,
      );
    }
  });

  for (const [title, first, second] of CONFLICTS) {
    add(
      `conflict: keeps the stored plant unchanged when its id arrives with ${title}`,
      async (r) => {
        await create(r, { id: 7n, ...first });
        expectExisting(
          'conflict',
          await create(r, { id: 7n, ...second }),
          first,
          'the differing create',
        );
        // And the stored plant really is unchanged, not merely reported so once.
        expectExisting(
          'conflict',
          await create(r, { id: 7n, ...first }),
          first,
          'a replay after it',
        );
      },
    );
  }

  add('text: stores names and tags exactly when they are any well-formed Unicode', async (r) => {
    for (const [index, plant] of TEXTS.entries()) {
      expectCreated(
        'text',
        await create(r, { id: BigInt(100 + index), ...plant }),
        `sample ${index}`,
      );
    }
    for (const [index, plant] of TEXTS.entries()) {
      const outcome = await create(r, { id: BigInt(100 + index), name: 'probe' });
      expectExisting('text', outcome, plant, `sample ${index} read back`);
    }
  });

  for (const [title, ids] of ID_RUNS) {
    add(`int64: keeps every id distinct and exact when ids are ${title}`, async (r) => {
      for (const id of ids) {
        const outcome = await create(r, { id, name: `plant ${id}` });
        // A store that rounds ids (through a JS number, say) files two of them under one key.
        if (!outcome.created) {
          throw new ConformanceError(
            'int64',
            `id ${id} answered ${describeValue(outcome)} though no plant was stored under it: the id collided with a neighbour (rounded or truncated)`,
          );
        }
      }
      for (const id of ids) {
        expectExisting(
          'int64',
          await create(r, { id, name: 'probe' }),
          { name: `plant ${id}` },
          `id ${id} read back`,
        );
      }
    });
  }

  add(
    `race: lets exactly one create win when ${racers} creates of one id run at once`,
    async (r) => {
      await race(r, r, racers, 42n);
    },
  );

  add(`race: creates every plant when ${racers} creates of distinct ids run at once`, async (r) => {
    const plants = Array.from({ length: racers }, (_, i) => ({
      id: BigInt(1000 + i),
      name: `${i}`,
    }));
    const outcomes = await Promise.all(plants.map((plant) => create(r, plant)));
    const lost = outcomes.flatMap((outcome, i) => (outcome.created ? [] : [plants[i]?.id]));
    if (lost.length > 0) {
      throw new ConformanceError(
        'race',
        `creates of free ids answered not created: ids ${lost.join(', ')}`,
      );
    }
  });

  const second = options.makeSecondInstance;
  if (second !== undefined) {
    add(
      `race across instances: lets exactly one create win when two instances over one store race on one id`,
      async (r) => {
        await race(r, await second(r), racers, 43n, 'race across instances');
      },
    );
  }

  add('context: stores and answers as usual when the context carries a principal', async (r) => {
    const principal = { sub: 'conformance-kit' } as Principal;
    expectCreated(
      'context',
      await create(r, { id: 20n, name: 'Fern' }, principal),
      'a create with a principal',
    );
    expectExisting(
      'context',
      await create(r, { id: 20n, name: 'Fern' }, principal),
      { name: 'Fern' },
      'its replay',
    );
  });

  add('signal: stores as usual when the signal fires after the create has answered', async (r) => {
    const controller = new AbortController();
    const outcome = checkedOutcome(
      await r.create({ id: 21n, name: 'Fern' }, { signal: controller.signal }),
    );
    controller.abort(new Error('the client left after the answer'));
    expectCreated('signal', outcome, 'the create');
    expectExisting(
      'signal',
      await create(r, { id: 21n, name: 'other' }),
      { name: 'Fern' },
      'a read back after the abort',
    );
  });

  if (options.rejectsWithSignalReason === true) {
    add(
      'signal: rejects with the signal reason and stores nothing when the signal has already fired',
      async (r) => {
        const reason = new Error('client went away');
        let answer: unknown;
        try {
          answer = await r.create({ id: 5n, name: 'late' }, { signal: AbortSignal.abort(reason) });
        } catch (error) {
          if (error !== reason) {
            throw new ConformanceError(
              'signal',
              `rejected with ${describeValue(String(error))}, not the signal's reason`,
            );
          }
          expectCreated(
            'signal',
            await create(r, { id: 5n, name: 'on time' }),
            'a create after the aborted one',
          );
          return;
        }
        throw new ConformanceError(
          'signal',
          `an aborted create answered ${describeValue(answer)}; expected a rejection with signal.reason`,
        );
      },
    );
  } else {
    add(
      'signal: tells the truth about what it stored when the signal has already fired',
      async (r) => {
        const reason = new Error('client went away');
        let outcome;
        try {
          outcome = checkedOutcome(
            await r.create({ id: 5n, name: 'late' }, { signal: AbortSignal.abort(reason) }),
          );
        } catch (error) {
          if (error instanceof ConformanceError) throw error;
          // A rejection claims nothing: a write that landed anyway is harmless, a retry replays it.
        }
        const probe = await create(r, { id: 5n, name: 'probe' });
        if (outcome !== undefined) {
          expectCreated('signal', outcome, 'the aborted create');
          expectExisting('signal', probe, { name: 'late' }, 'a read back');
        } else if (!probe.created) {
          expectExisting('signal', probe, { name: 'late' }, 'a create after the rejected one');
        }
      },
    );
  }

  return checks;
}
