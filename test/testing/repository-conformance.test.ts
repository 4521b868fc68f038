import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRepository, type PlantRepository } from '../../lib/index.ts';
import {
  type ConformanceReport,
  ConformanceError,
  registerRepositoryConformance,
  runRepositoryConformance,
} from '../../lib/testing.ts';
import {
  claimsAbortedCreates,
  conflictOnEveryExistingId,
  malformedOutcome,
  noUniquenessGuarantee,
  overwritesOnConflict,
  roundsIdsThroughNumber,
} from './mistaken-repositories.ts';

/** The failures of a report whose name begins with `rule`, each message checked to begin so too. */
function failuresOf(report: ConformanceReport, rule: string) {
  const failures = report.failed.filter(({ name }) => name.startsWith(`${rule}: `));
  for (const { error } of failures) {
    assert.ok(error instanceof ConformanceError, String(error));
    assert.equal(error.rule, rule);
    assert.ok(error.message.startsWith(`${rule}: `), error.message);
  }
  return failures;
}

describe('runRepositoryConformance', () => {
  it('passes every check and fails none when the repository is the memory one, with the defaults', async () => {
    // The memory store never reads its signal, as the contract allows: the default must pass it.
    const report = await runRepositoryConformance(() => createMemoryRepository());
    assert.deepEqual(report.failed, []);
    assert.equal(report.passed.length, 22);
    assert.ok(
      report.passed.includes(
        'signal: tells the truth about what it stored when the signal has already fired',
      ),
    );
  });

  it('names the replay and conflict rules when the repository throws for every id already stored', async () => {
    const report = await runRepositoryConformance(conflictOnEveryExistingId);
    const replay = failuresOf(report, 'replay');
    assert.equal(replay.length, 1);
    assert.match(replay[0]?.error.message ?? '', /^replay: threw Error: duplicate key value/);
    assert.equal(failuresOf(report, 'conflict').length, 5);
    assert.ok(report.passed.includes('created: answers { created: true } when the id is free'));
  });

  it('names the conflict rule when the repository overwrites the stored plant', async () => {
    const report = await runRepositoryConformance(overwritesOnConflict);
    const conflict = failuresOf(report, 'conflict');
    assert.equal(conflict.length, 5);
    assert.equal(
      conflict[0]?.error.message,
      'conflict: a replay after it answered {"created": false, "existing": {"name": "Cactus", "tag": "green"}}; expected { created: false, existing: {"name": "Fern", "tag": "green"} }',
    );
  });

  it('names the race rule when two concurrent creates of one id can both win', async () => {
    const report = await runRepositoryConformance(noUniquenessGuarantee);
    const [race] = failuresOf(report, 'race');
    assert.match(
      race?.error.message ?? '',
      /^race: (\d+) of 50 concurrent creates of id 42 answered \{ created: true \}; exactly one must win$/,
    );
    assert.ok(report.passed.some((name) => name.startsWith('replay: ')));
  });

  it('names the int64 rule when the repository rounds ids through Number', async () => {
    const report = await runRepositoryConformance(roundsIdsThroughNumber);
    const names = failuresOf(report, 'int64').map(({ name }) => name);
    assert.deepEqual(names, [
      'int64: keeps every id distinct and exact when ids are at the bottom of the int64 range',
      'int64: keeps every id distinct and exact when ids are at the top of the int64 range',
      'int64: keeps every id distinct and exact when ids are around 2^53',
      'int64: keeps every id distinct and exact when ids are around -2^53',
    ]);
    assert.match(
      failuresOf(report, 'int64')[2]?.error.message ?? '',
      /^int64: id 9007199254740993 answered .* no plant was stored under it: the id collided with a neighbour/,
    );
    assert.equal(report.failed.length, 4);
  });

  it('names the outcome shape rule, and what came instead, when an answer is malformed', async () => {
    const report = await runRepositoryConformance(malformedOutcome);
    const created = report.failed.find(({ name }) => name.startsWith('created: '));
    assert.equal(
      created?.error.message,
      'outcome shape: PlantRepository.create must answer { created: true } or { created: false, existing: { name, tag? } }, and it answered {"created": "yes"}',
    );
    assert.equal((created?.error as ConformanceError | undefined)?.rule, 'outcome shape');
  });

  it('still names the outcome shape rule when reading the malformed answer throws', async () => {
    // Awaited, so its `then` must read; listing its keys is what throws.
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('ownKeys threw');
        },
      },
    );
    const report = await runRepositoryConformance(() => ({ create: async () => hostile }) as never);
    const created = report.failed.find(({ name }) => name.startsWith('created: '));
    assert.equal(
      created?.error.message,
      'outcome shape: PlantRepository.create must answer { created: true } or { created: false, existing: { name, tag? } }, and it answered a value that throws when read',
    );
    assert.equal((created?.error as ConformanceError | undefined)?.rule, 'outcome shape');
  });

  it('names the signal rule when the repository answers created for an aborted create it did not store', async () => {
    const report = await runRepositoryConformance(claimsAbortedCreates);
    assert.deepEqual(
      report.failed.map(({ error }) => error.message),
      [
        'signal: a read back answered {"created": true}; expected { created: false, existing: {"name": "late"} }',
      ],
    );
  });

  it('names the signal rule when rejectsWithSignalReason is set and the repository stores a create whose signal had already fired', async () => {
    const report = await runRepositoryConformance(() => createMemoryRepository(), {
      rejectsWithSignalReason: true,
    });
    const [signal] = failuresOf(report, 'signal');
    assert.match(
      signal?.error.message ?? '',
      /^signal: an aborted create answered \{"created": true\}/,
    );
    assert.equal(report.failed.length, 1);
  });

  it('fails a check at its deadline when the repository never answers', async () => {
    const hanging: PlantRepository = { create: () => new Promise(() => {}) };
    const report = await runRepositoryConformance(() => hanging, { timeoutMs: 20 });
    assert.equal(report.passed.length, 0);
    assert.equal(report.failed[0]?.error.message, 'created: did not finish within 20 ms');
  });

  it('races across two instances and runs cleanups when given a second instance and fixtures', async () => {
    let cleanups = 0;
    let seconds = 0;
    const report = await runRepositoryConformance(
      () => ({ repository: createMemoryRepository(), cleanup: () => void (cleanups += 1) }),
      {
        makeSecondInstance: (first) => {
          seconds += 1;
          return first;
        },
        racers: 8,
      },
    );
    assert.deepEqual(report.failed, []);
    assert.equal(cleanups, 23);
    assert.equal(seconds, 1);
    assert.ok(
      report.passed.includes(
        'race across instances: lets exactly one create win when two instances over one store race on one id',
      ),
    );
  });

  it('names the race across instances rule when each instance keeps its own store', async () => {
    const report = await runRepositoryConformance(() => createMemoryRepository(), {
      makeSecondInstance: () => createMemoryRepository(),
    });
    assert.deepEqual(
      report.failed.map(({ error }) => error.message.split(':')[0]),
      ['race across instances'],
    );
  });

  it('throws a TypeError when racers or timeoutMs is out of range', async () => {
    const make = () => createMemoryRepository();
    await assert.rejects(runRepositoryConformance(make, { racers: 1 }), {
      name: 'TypeError',
      message: 'runRepositoryConformance: racers must be an integer of at least 2, got 1',
    });
    await assert.rejects(runRepositoryConformance(make, { timeoutMs: 0.5 }), {
      name: 'TypeError',
      message: 'runRepositoryConformance: timeoutMs must be an integer of at least 1, got 0.5',
    });
  });

  it('throws a TypeError naming an unknown option and the known ones', async () => {
    await assert.rejects(
      runRepositoryConformance(() => createMemoryRepository(), {
        rejectWithSignalReason: true,
      } as never),
      {
        name: 'TypeError',
        message:
          'runRepositoryConformance: unknown option "rejectWithSignalReason" (known: rejectsWithSignalReason, makeSecondInstance, racers, timeoutMs)',
      },
    );
  });

  it('throws a TypeError saying what replaced it when given the retired honoursAbortedSignal', async () => {
    await assert.rejects(
      runRepositoryConformance(() => createMemoryRepository(), {
        honoursAbortedSignal: false,
      } as never),
      {
        name: 'TypeError',
        message:
          "runRepositoryConformance: honoursAbortedSignal is retired: by default a repository may now answer as usual when its signal has already fired, as long as the answer is true (what honoursAbortedSignal: false asked); rejectsWithSignalReason: true asks for a rejection with the signal's reason",
      },
    );
  });
});

describe('registerRepositoryConformance', () => {
  it('registers one test per check, each failing with the check error, when given a runner test function', async () => {
    const tests: Array<[string, () => Promise<void>]> = [];
    registerRepositoryConformance((name, fn) => tests.push([name, fn]), roundsIdsThroughNumber);
    assert.equal(tests.length, 22);
    const [, top] = tests.find(([name]) => name.includes('top of the int64 range')) ?? [];
    assert.ok(top !== undefined);
    await assert.rejects(top() as Promise<void>, { name: 'ConformanceError', rule: 'int64' });
    const first = tests[0];
    assert.ok(first !== undefined);
    await (first[1] as () => Promise<void>)();
  });

  it('throws a TypeError when the runner test function is missing', () => {
    assert.throws(
      () => registerRepositoryConformance(undefined as never, () => createMemoryRepository()),
      {
        name: 'TypeError',
        message: "registerRepositoryConformance needs the runner's test function first",
      },
    );
  });
});
