import { describeValue, sameValue } from './describe-value.ts';
import { ConformanceError, type ConformanceCheck } from './report.ts';
import {
  type Answer,
  expectError,
  expectJson,
  expectStatus,
  parse,
  plantJson,
  send,
  serverCheck,
  type Target,
} from './server-http.ts';
import type { ServerPlan } from './server-plan.ts';

/** The checks of step 8, the int64 ids at both ends and past 2^53, and HTTP, in that order. */
export function storeChecks(plan: ServerPlan): ConformanceCheck[] {
  const { ids } = plan;
  const free = ids.general;
  const checks: ConformanceCheck[] = [];
  const add = (name: string, run: (server: Target) => Promise<void>) =>
    checks.push(serverCheck(plan.server, name, run));
  const post = (server: Target, id: bigint | string, name: string, tag?: string) =>
    send(server, { body: plantJson(id, name, tag) });

  add('8. store: answers 200 with exactly { name, tag } for a new id', async (server) => {
    expectPlant('8. store', await post(server, free(10), 'Fern', 'green'), {
      name: 'Fern',
      tag: 'green',
    });
  });

  add('8. store: answers 200 with exactly { name } when no tag was sent', async (server) => {
    expectPlant('8. store', await post(server, free(11), 'Moss'), { name: 'Moss' });
  });

  add(
    '8. replay: answers 200 with the same plant when identical content is sent again',
    async (server) => {
      expectPlant('8. replay', await post(server, free(10), 'Fern', 'green'), {
        name: 'Fern',
        tag: 'green',
      });
      expectPlant('8. replay', await post(server, free(11), 'Moss'), { name: 'Moss' });
    },
  );

  add(
    '8. conflict: answers 409 when the id holds a different plant, and keeps the stored one',
    async (server) => {
      const rule = '8. conflict';
      for (const [name, tag] of [
        ['Cactus', 'green'],
        ['Fern', 'blue'],
        ['Fern', undefined],
        ['Fern', ''],
      ] as const) {
        expectError(rule, await post(server, free(10), name, tag), 409);
      }
      expectError(rule, await post(server, free(11), 'Moss', 'x'), 409);
      expectPlant(rule, await post(server, free(10), 'Fern', 'green'), {
        name: 'Fern',
        tag: 'green',
      });
      expectPlant(rule, await post(server, free(11), 'Moss'), { name: 'Moss' });
    },
  );

  add('7. one id: takes 1.0, 1e0 and 10e-1 spellings of an id as that id', async (server) => {
    const rule = '7. one id';
    const id = free(12);
    expectPlant(rule, await post(server, id, 'Spelled'), { name: 'Spelled' });
    for (const spelling of [`${id}.0`, `${id}e0`, `${id}0e-1`]) {
      expectPlant(rule, await post(server, spelling, 'Spelled'), { name: 'Spelled' });
      expectError(rule, await post(server, spelling, 'Other'), 409);
    }
  });

  add('8. concurrency: lets exactly one of 20 concurrent creates of one id win', async (server) => {
    const id = free(13);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(server, id, `racer ${i}`)),
    );
    const winners = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
    const others = answers.filter((answer) => answer.status !== 200 && answer.status !== 409);
    if (winners.length !== 1 || others.length > 0) {
      throw new ConformanceError(
        '8. concurrency',
        `20 concurrent creates of id ${id} with different names answered ${describeValue(answers.map((a) => a.status))}; expected one 200 and 409 for the rest`,
      );
    }
    expectPlant('8. concurrency', await post(server, id, `racer ${winners[0]}`), {
      name: `racer ${winners[0]}`,
    });
  });

  const pairs: ReadonlyArray<readonly [string, bigint, bigint]> = [
    ['at the top of the range', 9223372036854775807n, 9223372036854775806n],
    ['at the bottom of the range', -9223372036854775808n, -9223372036854775807n],
    ['near 2^62', ids.top, ids.top + 1n],
    ['near -2^62', ids.bottom, ids.bottom - 1n],
  ];
  for (const [title, a, b] of pairs) {
    add(`int64: keeps neighbouring ids apart ${title} (${a}, ${b})`, async (server) => {
      await expectDistinct(server, a, b);
    });
  }

  const [a, b] = [ids.past, ids.past + 1n];
  add(
    `int64: tells replay from conflict past 2^53, at ids a double cannot tell apart (${a}, ${b})`,
    async (server) => {
      await expectDistinct(server, a, b);
      expectPlant('int64', await post(server, b, fixedName(b)), { name: fixedName(b) });
      expectError('int64', await post(server, b, `${fixedName(b)} changed`), 409);
    },
  );

  add('http: dates every answer and frames its body by its Content-Length', async (server) => {
    const rule = 'http';
    for (const answer of [
      await send(server, {
        method: 'GET',
        path: '/openapi.json',
        authorization: null,
        contentType: null,
      }),
      await post(server, free(10), 'Fern', 'green'),
      await send(server, { authorization: null }),
    ]) {
      if (answer.headers.get('date') === null)
        throw new ConformanceError(
          rule,
          `${answer.request} answered without a Date header (RFC 9110 section 6.6.1)`,
        );
      const length = answer.headers.get('content-length');
      if (length !== null && Number(length) !== new TextEncoder().encode(answer.text).byteLength) {
        throw new ConformanceError(
          rule,
          `${answer.request} declared Content-Length ${describeValue(length, answer.hide)} for a ${answer.text.length}-byte body`,
        );
      }
    }
  });

  add('http: routes /plants by its path when the request carries a query', async (server) => {
    expectPlant(
      'http',
      await send(server, {
        path: `/plants?conform=${plan.runId}`,
        body: plantJson(free(14), 'query'),
      }),
      { name: 'query' },
    );
  });

  return checks;
}

/** The name the int64 checks give a fixed id, the same in every run so that reruns replay. */
function fixedName(id: bigint): string {
  return `plant-store conform ${id}`;
}

/** Creates `a` and `b` with their fixed names: a server that confuses them answers 409. */
async function expectDistinct(server: Target, a: bigint, b: bigint): Promise<void> {
  for (const [index, id] of [a, b, a].entries()) {
    const answer = await send(server, { body: plantJson(id, fixedName(id)) });
    if (answer.status !== 409) {
      expectPlant('int64', answer, { name: fixedName(id) });
      continue;
    }
    const other = id === a ? b : a;
    // A server that files both ids as one holds the other's plant under this one; a 409 to that
    // too, before this run created `id`, is a plant the store held already (the host's own).
    const probe = await send(server, { body: plantJson(id, fixedName(other)) });
    if (probe.status === 200) {
      throw new ConformanceError(
        'int64',
        `id ${id} answered 409 though plant-store conform only ever sends it as ${fixedName(id)}, and the server holds ${fixedName(other)} under it: it files ${a} and ${b} as one id, so it loses int64 precision`,
      );
    }
    if (index < 2) {
      throw new ConformanceError(
        'int64',
        `id ${id} was already taken: the server holds a plant under it that plant-store conform did not write (it writes it only as ${fixedName(id)}), so this check cannot run there; run it against a store where this id is free`,
      );
    }
    throw new ConformanceError(
      'int64',
      `id ${id} answered 409 after this run created it as ${fixedName(id)}: creating ${other} changed the plant stored under ${id}, so the server loses int64 precision`,
    );
  }
}

/** Fails `rule` unless the answer is `200` with exactly `plant` as JSON. */
function expectPlant(rule: string, answer: Answer, plant: { name: string; tag?: string }): void {
  expectStatus(rule, answer, 200);
  expectJson(rule, answer);
  const body = parse(answer);
  if (!sameValue(body, plant)) {
    throw new ConformanceError(
      rule,
      `${answer.request} answered 200 with ${describeValue(answer.text, answer.hide)}; expected exactly ${JSON.stringify(plant)}`,
    );
  }
}
