/**
 * CORS, when the `cors` option is on: the origins it refuses at construction, preflights, and
 * the headers on every answer to an allowed origin, errors included.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { type DeclaredAt, plantRequest, spy } from '../support/web-fakes.ts';
import { defineCases, type Handler, json } from './context.ts';

/** The cases of CORS. */
export const corsCases = defineCases('CORS', (it) => {
  const APP = 'http://app.test:5173';
  const EXPOSED = 'WWW-Authenticate, X-Request-Id, Retry-After';
  const origins = { origins: [APP, 'https://docs.example.com'] };
  const ACCESS_CONTROL = /^access-control-/;

  /** The names of the response's `Access-Control-*` headers. */
  function accessControl(headers: Headers): string[] {
    return [...headers.keys()].filter((name) => ACCESS_CONTROL.test(name));
  }

  /** Asserts the headers every response to an allowed origin carries. */
  function assertAllowed(headers: Headers, origin: string, what: string): void {
    assert.equal(headers.get('access-control-allow-origin'), origin, what);
    assert.equal(headers.get('access-control-expose-headers'), EXPOSED, what);
    assert.equal(headers.get('vary'), 'Origin', what);
  }

  function preflight(origin: string | undefined, url = 'http://localhost/plants'): Request {
    const headers: Record<string, string> = {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    if (origin !== undefined) headers.origin = origin;
    return new Request(url, { method: 'OPTIONS', headers });
  }

  it('throws a TypeError for cors origins no browser origin could match', (t) => {
    for (const [what, option] of [
      ['an empty list', { origins: [] }],
      ['a trailing slash', { origins: ['https://app.test/'] }],
      ['a path', { origins: ['https://app.test/app'] }],
      ['a query', { origins: ['https://app.test?x=1'] }],
      ['upper case', { origins: ['https://App.test'] }],
      ['a default port', { origins: ['https://app.test:443'] }],
      ['no scheme', { origins: ['app.test'] }],
      ['another scheme', { origins: ['ftp://app.test'] }],
      ['the opaque origin', { origins: ['null'] }],
      ['one origin as a string', { origins: 'https://app.test' }],
      ['no origins', {}],
      ['a negative maxAge', { origins: '*', maxAge: -1 }],
      ['a fractional maxAge', { origins: '*', maxAge: 1.5 }],
      ['a maxAge over a day', { origins: '*', maxAge: 86_401 }],
      ['null', null],
    ] as const) {
      assert.throws(
        () => t.lib.createCors(option as never),
        { name: 'TypeError', message: /cors/ },
        what,
      );
    }
  });

  it('throws a TypeError when the cors option is not what createCors returns', (t) => {
    const verifier = t.lib.createStaticTokenVerifier(['t']);
    // Plain options, as a JavaScript caller might pass them, are refused at construction.
    assert.throws(() => t.lib.createPlantStore({ verifier, cors: { origins: '*' } as never }), {
      name: 'TypeError',
      message: /^cors takes what createCors\(\{ origins \}\) from 'plant-store\/cors' returns/,
    });
  });

  it('adds no CORS header and answers a preflight 405 when cors is off', async (t) => {
    const { store, repository } = t.testStore();
    for (const handler of [store.fetch, store.handleCreatePlant]) {
      const answer = await t.send(handler, preflight(APP), 'MethodNotAllowed');
      assert.equal(answer.status, 405);
      assert.deepEqual(accessControl(answer.headers), []);
      assert.equal(answer.headers.get('vary'), null);
      const created = await t.send(
        handler,
        plantRequest(json({ id: 1, name: 'a' }), { origin: APP }),
      );
      assert.equal(created.status, 200);
      assert.deepEqual(accessControl(created.headers), []);
      assert.equal(created.headers.get('vary'), null);
    }
    assert.equal(repository.create.calls.length, 2);
  });

  it('answers a preflight from an allowed origin 204 without a token, on fetch and handleCreatePlant', async (t) => {
    const verify = spy((_token: string) => ({ valid: true }) as const);
    const { store, repository } = t.testStore({
      cors: t.lib.createCors(origins),
      verifier: { verify },
    });
    for (const [handler, url] of [
      [store.fetch, 'http://localhost/plants'],
      [store.handleCreatePlant, 'http://localhost/anywhere/the/host/mounts/it'],
    ] as const) {
      const response = await t.deliver(handler, preflight(APP, url));
      assert.equal(response.status, 204, url);
      assertAllowed(response.headers, APP, url);
      assert.equal(response.headers.get('access-control-allow-methods'), 'POST');
      assert.equal(
        response.headers.get('access-control-allow-headers'),
        'Authorization, Content-Type, X-Request-Id',
      );
      assert.equal(response.headers.get('access-control-max-age'), '600');
      assert.equal(response.headers.get('content-type'), null);
      assert.equal(await response.text(), '');
    }
    assert.equal(verify.calls.length, 0);
    assert.equal(repository.create.calls.length, 0);
  });

  it("answers '*' with Access-Control-Allow-Origin: * and the configured maxAge", async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors({ origins: '*', maxAge: 7200 }) });
    const response = await t.deliver(store.fetch, preflight('https://anyone.example'));
    assert.equal(response.status, 204);
    assertAllowed(response.headers, '*', 'preflight');
    assert.equal(response.headers.get('access-control-max-age'), '7200');
    const created = await t.send(
      store.fetch,
      plantRequest(json({ id: 2, name: 'a' }), { origin: 'https://anyone.example' }),
    );
    assert.equal(created.status, 200);
    assertAllowed(created.headers, '*', 'create');
  });

  it('gives a disallowed origin no CORS header: its preflight is a plain OPTIONS, 405', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    for (const origin of ['https://evil.test', 'HTTP://APP.TEST:5173', `${APP}/`, 'null']) {
      const response = await t.send(store.fetch, preflight(origin), 'MethodNotAllowed');
      assert.equal(response.status, 405, origin);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.deepEqual(accessControl(response.headers), [], origin);
      // The answer depends on the origin, so caches must key on it (Fetch, CORS and HTTP caches).
      assert.equal(response.headers.get('vary'), 'Origin', origin);
    }
    const created = await t.send(
      store.fetch,
      plantRequest(json({ id: 3, name: 'a' }), { origin: 'https://evil.test' }),
    );
    assert.equal(created.status, 200);
    assert.deepEqual(accessControl(created.headers), []);
    assert.equal(created.headers.get('vary'), 'Origin');
  });

  it('answers 405 with the CORS headers to an OPTIONS from an allowed origin that is not a preflight', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    for (const handler of [store.fetch, store.handleCreatePlant]) {
      const request = new Request('http://localhost/plants', {
        method: 'OPTIONS',
        headers: { origin: APP },
      });
      const response = await t.send(handler, request, 'MethodNotAllowed');
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assertAllowed(response.headers, APP, 'OPTIONS without Access-Control-Request-Method');
    }
  });

  it('answers a request without Origin with no CORS header but Vary: Origin', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins) });
    const created = await t.send(store.fetch, plantRequest(json({ id: 4, name: 'a' })));
    assert.equal(created.status, 200);
    assert.deepEqual(accessControl(created.headers), []);
    assert.equal(created.headers.get('vary'), 'Origin');
  });

  it('puts the CORS headers on every answer to an allowed origin, errors included', async (t) => {
    const { store } = t.testStore({ cors: t.lib.createCors(origins), maxBodyBytes: 64 });
    const withOrigin = (body: BodyInit | null, headers: Record<string, string> = {}) =>
      plantRequest(body, { origin: APP, ...headers });
    const answers: Array<[string, Handler, Request, number, DeclaredAt?]> = [
      ['a create', store.fetch, withOrigin(json({ id: 5, name: 'a' })), 200],
      ['a replay', store.handleCreatePlant, withOrigin(json({ id: 5, name: 'a' })), 200],
      ['a conflict', store.fetch, withOrigin(json({ id: 5, name: 'b' })), 409],
      ['no token', store.fetch, withOrigin('{}', { authorization: '' }), 401],
      ['a rejected token', store.fetch, withOrigin('{}', { authorization: 'Bearer no' }), 401],
      ['no body', store.handleCreatePlant, withOrigin(null), 400],
      ['not JSON', store.fetch, withOrigin('{'), 400],
      ['text/plain', store.fetch, withOrigin('{}', { 'content-type': 'text/plain' }), 415],
      ['too large', store.fetch, withOrigin(json({ id: 6, name: 'a'.repeat(100) })), 413],
      [
        'GET /plants',
        store.fetch,
        new Request('http://localhost/plants', { headers: { origin: APP } }),
        405,
        'MethodNotAllowed',
      ],
      [
        'an unknown path',
        store.fetch,
        new Request('http://localhost/nothing', { method: 'POST', headers: { origin: APP } }),
        404,
        'NotFound',
      ],
      [
        'POST /openapi.json',
        store.fetch,
        new Request('http://localhost/openapi.json', { method: 'POST', headers: { origin: APP } }),
        405,
        'MethodNotAllowed',
      ],
    ];
    for (const [what, handler, request, status, where] of answers) {
      const answer = await t.send(handler, request, where);
      assert.equal(answer.status, status, what);
      assertAllowed(answer.headers, APP, what);
    }
    const refused = await t.send(store.fetch, withOrigin('{}', { authorization: 'Bearer no' }));
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
    const document = await t.deliver(
      store.fetch,
      new Request('http://localhost/openapi.json', { headers: { origin: APP } }),
    );
    assert.equal(document.status, 200);
    assertAllowed(document.headers, APP, 'GET /openapi.json');
  });

  it('puts the CORS headers on a 500 when the repository throws', async (t) => {
    const { store, onError } = t.testStore({
      cors: t.lib.createCors(origins),
      repository: {
        create() {
          throw new Error('disk on fire');
        },
      },
    });
    const answer = await t.send(
      store.fetch,
      plantRequest(json({ id: 7, name: 'a' }), { origin: APP }),
    );
    assert.equal(answer.status, 500);
    assertAllowed(answer.headers, APP, '500');
    assert.equal(onError.calls.length, 1);
  });
});
