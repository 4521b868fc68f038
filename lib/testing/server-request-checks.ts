// Each request that must fail breaks one step first, so a server that checks the table's steps
// in another order fails the step it skipped.

import { describeValue } from './describe-value.ts';
import { ConformanceError, type ConformanceCheck } from './report.ts';
import { openApiProblems } from './server-openapi.ts';
import type { ServerPlan } from './server-plan.ts';
import {
  expectError,
  expectHeader,
  expectJson,
  expectStatus,
  parse,
  plantJson,
  send,
  serverCheck,
  type Target,
} from './server-http.ts';

const CHALLENGE = 'Bearer realm="plant-store"';
/** Why the unknown-path check is skipped under `mounted`. */
const MOUNTED =
  'mounted: the host answers unknown paths under its prefix (its own 404), not the store';
const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';

/** The checks of the routes and of steps 1 to 7, in the order they run. */
export function requestChecks(plan: ServerPlan): ConformanceCheck[] {
  const free = plan.ids.general;
  const valid = plantJson(free(0), 'plant-store conform');
  // A valid create of exactly `bytes` bytes, padded by a field the server must ignore.
  const big = (bytes: number) => {
    const head = `{"id":${free(1)},"name":"x","pad":"`;
    return `${head}${'a'.repeat(Math.max(0, bytes - head.length - 2))}"}`;
  };
  const checks: ConformanceCheck[] = [];
  const add = (name: string, run: (server: Target) => Promise<void>, skip?: string) =>
    checks.push(serverCheck(plan.server, name, run, skip));

  add(
    'openapi: serves an OpenAPI 3.1 document of the Plant Store API at GET /openapi.json, without a token',
    async (server) => {
      const rule = 'openapi';
      const answer = await send(server, {
        method: 'GET',
        path: '/openapi.json',
        authorization: null,
        contentType: null,
      });
      expectStatus(rule, answer, 200);
      expectJson(rule, answer);
      const problems = openApiProblems(parse(answer), answer.hide);
      if (problems.length > 0)
        throw new ConformanceError(rule, `the document ${problems.join('; ')}`);
    },
  );

  add(
    'routes: answers 404 with the Error body for an unknown path, without a token',
    async (server) => {
      expectError(
        'routes',
        await send(server, {
          method: 'GET',
          path: `/plant-store-conform-${plan.runId}`,
          authorization: null,
          contentType: null,
        }),
        404,
      );
    },
    plan.mounted ? MOUNTED : undefined,
  );

  add(
    '1. method: answers 405 with Allow: POST for any other method on /plants, before authentication',
    async (server) => {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const answer = await send(server, { method, authorization: null, contentType: null });
        expectError('1. method', answer, 405);
        expectHeader('1. method', answer, 'allow', 'POST');
      }
      const head = await send(server, { method: 'HEAD', authorization: null, contentType: null });
      expectStatus('1. method', head, 405);
      expectHeader('1. method', head, 'allow', 'POST');
    },
  );

  for (const [title, authorization] of [
    ['the Authorization header is missing', null],
    ['the scheme is not Bearer', `Basic ${btoa('user:password')}`],
    ['the bearer token is malformed', 'Bearer to ken'],
    ['the bearer token is empty', 'Bearer'],
  ] as const) {
    add(
      `2. authentication: answers 401 with WWW-Authenticate: ${CHALLENGE} when ${title}`,
      async (server) => {
        const answer = await send(server, { authorization, body: valid });
        expectError('2. authentication', answer, 401);
        expectHeader('2. authentication', answer, 'www-authenticate', CHALLENGE);
      },
    );
  }

  add(
    `2. authentication: answers 401 with error="invalid_token" when the server rejects the token`,
    async (server) => {
      const answer = await send(server, {
        authorization: `Bearer ${plan.rejectedToken}`,
        body: valid,
      });
      expectError('2. authentication', answer, 401);
      expectHeader('2. authentication', answer, 'www-authenticate', INVALID_TOKEN);
    },
  );

  add(
    '2. authentication: checks the token before the body (401, not 400, 413 or 415)',
    async (server) => {
      const rule = '2. authentication';
      const rejected = `Bearer ${plan.rejectedToken}`;
      for (const [authorization, challenge] of [
        [null, CHALLENGE],
        [rejected, INVALID_TOKEN],
      ] as const) {
        for (const request of [
          { body: undefined },
          { body: '' },
          { body: '{"id": 1,' },
          { body: valid, contentType: 'text/plain' },
          { body: big(plan.maxBodyBytes + 1) },
        ]) {
          const answer = await send(server, { authorization, ...request });
          expectError(rule, answer, 401);
          expectHeader(rule, answer, 'www-authenticate', challenge);
        }
      }
    },
  );

  add(
    '2. authentication: takes the scheme in any case, and more than one space after it',
    async (server) => {
      for (const [i, scheme] of ['bearer ', 'BEARER   '].entries()) {
        const answer = await send(server, {
          authorization: `${scheme}${server.token}`,
          body: plantJson(free(2 + i), 'scheme'),
        });
        expectStatus('2. authentication', answer, 200);
      }
    },
  );

  add(
    '3. body present: answers 400 when the body is missing or empty, before the media type',
    async (server) => {
      for (const request of [
        {},
        { body: '' },
        { contentType: 'text/plain' },
        { contentType: null, body: '' },
      ]) {
        expectError('3. body present', await send(server, request), 400);
      }
    },
  );

  add(
    '4. media type: answers 415 when the body is not declared application/json with UTF-8',
    async (server) => {
      for (const contentType of [
        null,
        'text/plain',
        'application/jsonx',
        'application/json; charset=latin1',
        'application/x-www-form-urlencoded',
      ]) {
        expectError('4. media type', await send(server, { contentType, body: valid }), 415);
      }
      // Before the size.
      expectError(
        '4. media type',
        await send(server, { contentType: 'text/plain', body: big(plan.maxBodyBytes + 1) }),
        415,
      );
    },
  );

  add('4. media type: accepts application/json in any case, with parameters', async (server) => {
    const answer = await send(server, {
      contentType: 'Application/JSON; charset=UTF-8',
      body: plantJson(free(4), 'media'),
    });
    expectStatus('4. media type', answer, 200);
  });

  add(
    `5. size: answers 413 past ${plan.maxBodyBytes} bytes, before decoding, and accepts exactly ${plan.maxBodyBytes}`,
    async (server) => {
      expectError('5. size', await send(server, { body: big(plan.maxBodyBytes + 1) }), 413);
      const invalid = new Uint8Array(plan.maxBodyBytes + 1).fill(0xff);
      expectError('5. size', await send(server, { body: invalid }), 413);
      expectStatus('5. size', await send(server, { body: big(plan.maxBodyBytes) }), 200);
    },
  );

  add('6. decoding: answers 400 when the body is not UTF-8', async (server) => {
    const prefix = new TextEncoder().encode(`{"id":${free(5)},"name":"`);
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = new Uint8Array([...prefix, ...bad, 0x22, 0x7d]);
      expectError('6. decoding', await send(server, { body }), 400);
    }
  });

  add('6. decoding: answers 400 when the body is not JSON', async (server) => {
    for (const body of [
      '{"id": 1,',
      'plant',
      '{"id":1,"name":"x"}}',
      "{'id':1}",
      '{"id":1,"name":"x",}',
    ]) {
      expectError('6. decoding', await send(server, { body }), 400);
    }
  });

  const shapes: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['the top level is not an object', ['[]', '"plant"', '42', 'null']],
    [
      'the id is missing or not an integer',
      [
        '{"name":"x"}',
        `{"id":"${free(6)}","name":"x"}`,
        `{"id":${free(6)}.5,"name":"x"}`,
        '{"id":null,"name":"x"}',
        '{"id":true,"name":"x"}',
        `{"id":${free(6)}.0000000000000001,"name":"x"}`,
      ],
    ],
    [
      'the id is outside the int64 range',
      [
        '{"id":9223372036854775808,"name":"x"}',
        '{"id":-9223372036854775809,"name":"x"}',
        '{"id":1e19,"name":"x"}',
      ],
    ],
    [
      'the name is missing or not a string',
      [`{"id":${free(6)}}`, `{"id":${free(6)},"name":7}`, `{"id":${free(6)},"name":null}`],
    ],
    [
      'the tag is null or not a string',
      [plantJson(free(6), 'x', null), `{"id":${free(6)},"name":"x","tag":1}`],
    ],
    [
      'a name or tag holds a lone surrogate or U+0000',
      [
        `{"id":${free(6)},"name":"\\ud800"}`,
        `{"id":${free(6)},"name":"a\\u0000"}`,
        `{"id":${free(6)},"name":"x","tag":"\\udc00"}`,
      ],
    ],
  ];
  for (const [title, bodies] of shapes) {
    add(`7. shape: answers 400 when ${title}`, async (server) => {
      for (const body of bodies) {
        const answer = await send(server, { body });
        if (answer.status !== 400) {
          throw new ConformanceError(
            '7. shape',
            `the body ${describeValue(body)} answered ${answer.status}; expected 400`,
          );
        }
        expectError('7. shape', answer, 400);
      }
    });
  }
  return checks;
}
