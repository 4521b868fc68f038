import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CorsOptions, createCors } from '../../lib/cors.ts';
import { createPlantStore, createStaticTokenVerifier } from '../../lib/index.ts';

const TOKEN = 's3cr3t';

function storeWith(origins: CorsOptions['origins']) {
  return createPlantStore({
    verifier: createStaticTokenVerifier([TOKEN]),
    cors: createCors({ origins }),
    onError: () => {},
  });
}

function preflight(origin: string): Request {
  return new Request('http://api.test/plants', {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

let nextId = 1;
function create(origin: string): Request {
  return new Request('http://api.test/plants', {
    method: 'POST',
    headers: { origin, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Monstera' }),
  });
}

/** The origin a store allows for `origin`: its preflight's and its create's `Allow-Origin`. */
async function allowedOrigin(
  store: ReturnType<typeof storeWith>,
  origin: string,
): Promise<string | null> {
  const answer = await store.fetch(preflight(origin));
  const created = await store.fetch(create(origin));
  assert.equal(created.status, 200, origin);
  assert.equal(created.headers.get('vary'), 'Origin', origin);
  const allowed = created.headers.get('access-control-allow-origin');
  if (allowed === null) {
    assert.equal(answer.status, 405, origin);
    assert.equal(answer.headers.get('access-control-allow-origin'), null, origin);
  } else {
    assert.equal(answer.status, 204, origin);
    assert.equal(answer.headers.get('access-control-allow-origin'), allowed, origin);
    assert.equal(answer.headers.get('access-control-allow-methods'), 'POST', origin);
    assert.equal(
      created.headers.get('access-control-expose-headers'),
      'WWW-Authenticate, X-Request-Id, Retry-After',
      origin,
    );
  }
  return allowed;
}

describe('createCors', () => {
  it('allows exactly the listed origins when given exact origins', async () => {
    const store = storeWith(['https://app.example.com', 'http://localhost:5173']);
    assert.equal(await allowedOrigin(store, 'https://app.example.com'), 'https://app.example.com');
    assert.equal(await allowedOrigin(store, 'http://localhost:5173'), 'http://localhost:5173');
    for (const other of [
      'https://example.com',
      'http://app.example.com',
      'https://app.example.com:8443',
      'https://a.app.example.com',
      'http://localhost:5174',
      'null',
    ]) {
      assert.equal(await allowedOrigin(store, other), null, other);
    }
  });

  it('allows every origin with a wildcard Allow-Origin when given *', async () => {
    const store = storeWith('*');
    for (const origin of ['https://app.example.com', 'http://localhost:5173', 'null']) {
      assert.equal(await allowedOrigin(store, origin), '*', origin);
    }
  });

  it('allows one or more labels under the domain when given a subdomain pattern', async () => {
    const store = storeWith(['https://*.example.com']);
    for (const origin of [
      'https://a.example.com',
      'https://a.b.example.com',
      'https://preview-42.example.com',
      'https://xn--bcher-kva.example.com',
    ]) {
      assert.equal(await allowedOrigin(store, origin), origin, origin);
    }
  });

  it('refuses the bare domain, another scheme, another port and look-alikes when given a pattern', async () => {
    const store = storeWith(['https://*.example.com']);
    for (const origin of [
      'https://example.com',
      'http://a.example.com',
      'https://a.example.com:8443',
      'https://a.example.com:443',
      'https://evil-example.com',
      'https://aexample.com',
      'https://a.example.com.evil.com',
      'https://.example.com',
      'https://a..example.com',
      'https://user@a.example.com',
      'https://a.example.com/',
      'https://A.example.com',
      'https://*.example.com',
      'null',
    ]) {
      assert.equal(await allowedOrigin(store, origin), null, origin);
    }
  });

  it('allows the bare domain too when it is listed beside its pattern', async () => {
    const store = storeWith(['https://*.example.com', 'https://example.com']);
    assert.equal(await allowedOrigin(store, 'https://example.com'), 'https://example.com');
    assert.equal(await allowedOrigin(store, 'https://a.example.com'), 'https://a.example.com');
  });

  it('matches the port exactly when the pattern has one', async () => {
    const store = storeWith(['https://*.example.com:8443', 'http://*.localhost:5173']);
    assert.equal(
      await allowedOrigin(store, 'https://a.example.com:8443'),
      'https://a.example.com:8443',
    );
    assert.equal(
      await allowedOrigin(store, 'http://app.localhost:5173'),
      'http://app.localhost:5173',
    );
    for (const origin of [
      'https://a.example.com',
      'https://a.example.com:18443',
      'https://a.example.com:8444',
      'http://app.localhost',
      'http://app.localhost:51730',
    ]) {
      assert.equal(await allowedOrigin(store, origin), null, origin);
    }
  });

  it('keeps answering many origins under one pattern, each with its own Allow-Origin', async () => {
    // Past the few whose headers are kept, each origin still gets its own headers, not another's.
    const store = storeWith(['https://*.example.com']);
    for (let i = 0; i < 100; i++) {
      const origin = `https://tenant-${i}.example.com`;
      const answer = await store.fetch(preflight(origin));
      assert.equal(answer.status, 204, origin);
      assert.equal(answer.headers.get('access-control-allow-origin'), origin);
    }
  });

  it('asks the function on every request when given a predicate', async () => {
    const asked: string[] = [];
    let open = true;
    const store = storeWith((origin) => {
      asked.push(origin);
      return open && origin.endsWith('.partner.test');
    });
    assert.equal(await allowedOrigin(store, 'https://a.partner.test'), 'https://a.partner.test');
    assert.equal(await allowedOrigin(store, 'https://a.other.test'), null);
    open = false;
    assert.equal(await allowedOrigin(store, 'https://a.partner.test'), null);
    assert.ok(asked.includes('https://a.partner.test'));
    assert.ok(asked.includes('https://a.other.test'));
    // The store reads Origin only from requests that carry one.
    const plain = await store.fetch(
      new Request('http://api.test/plants', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: nextId++, name: 'Pilea' }),
      }),
    );
    assert.equal(plain.status, 200);
    assert.ok(!asked.includes(''));
  });

  it('denies without failing the request when the predicate throws or returns a non-boolean', async () => {
    for (const predicate of [
      () => {
        throw new Error('predicate bug');
      },
      // An async predicate type-checks in plain JavaScript; its promise must not count as yes.
      () => Promise.resolve(true) as unknown as boolean,
      () => 1 as unknown as boolean,
    ]) {
      const store = storeWith(predicate);
      assert.equal(await allowedOrigin(store, 'https://app.example.com'), null);
    }
  });

  it('answers the other routes with the CORS headers an allowed pattern origin earns', async () => {
    const store = storeWith(['https://*.example.com']);
    const document = await store.fetch(
      new Request('http://api.test/openapi.json', { headers: { origin: 'https://a.example.com' } }),
    );
    assert.equal(document.status, 200);
    assert.equal(document.headers.get('access-control-allow-origin'), 'https://a.example.com');
    const elsewhere = await store.fetch(
      new Request('http://api.test/openapi.json', { headers: { origin: 'https://example.com' } }),
    );
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), null);
    assert.equal(elsewhere.headers.get('vary'), 'Origin');
  });

  it('throws a TypeError saying what is wrong when an origin could never match', () => {
    for (const [origin, reason] of [
      [
        'https://app.example.com/',
        /"https:\/\/app\.example\.com\/" has a trailing slash: .*https:\/\/app\.example\.com /,
      ],
      ['https://app.example.com/app', /has a path: .*https:\/\/app\.example\.com /],
      ['https://app.example.com?x=1', /has a query or fragment/],
      ['https://user@app.example.com', /has user info/],
      ['app.example.com', /not an http\(s\) origin: a bare host needs its scheme/],
      ['localhost:5173', /a bare host needs its scheme/],
      ['ftp://app.example.com', /not an http\(s\) origin/],
      ['null', /not an http\(s\) origin/],
      ['', /an empty origin/],
      ['  ', /an empty origin/],
      ['*', /'\*' stands alone/],
      ['https://App.Example.com', /written as a browser sends it: https:\/\/app\.example\.com /],
      [
        'https://app.example.com:443',
        /written as a browser sends it: https:\/\/app\.example\.com /,
      ],
      [
        'https://bücher.example',
        /written as a browser sends it: https:\/\/xn--bcher-kva\.example /,
      ],
      ['https://*.example.com/', /has a trailing slash: .*https:\/\/\*\.example\.com /],
      ['https://*.Example.com', /written as a browser sends it: https:\/\/\*\.example\.com /],
      [
        'https://*.bücher.example',
        /written as a browser sends it: https:\/\/\*\.xn--bcher-kva\.example /,
      ],
      ['https://*.example.com:443', /written as a browser sends it: https:\/\/\*\.example\.com /],
      ['https://a.*.example.com', /a wildcard stands only for the leading labels/],
      ['https://*example.com', /a wildcard stands only for the leading labels/],
      ['https://*.*.example.com', /a wildcard stands only for the leading labels/],
      ['https://example.*', /a wildcard stands only for the leading labels/],
      ['https://*.example.com:*', /a wildcard stands only for the leading labels/],
      ['*://app.example.com', /a wildcard stands only for the leading labels/],
      ['*.example.com', /a bare host needs its scheme/],
      ['https://*', /a wildcard stands only for the leading labels/],
      ['https://*.', /the domain after the wildcard must be a host name/],
      ['https://*..example.com', /the domain after the wildcard must be a host name/],
      ['https://*.1.2.3.4', /not an http\(s\) origin/],
    ] as const) {
      assert.throws(
        () => createCors({ origins: ['https://ok.example.com', origin] }),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, origin);
          assert.match(error.message, /^cors\.origins: /, origin);
          assert.match(error.message, reason, origin);
          return true;
        },
      );
    }
  });

  it('throws a TypeError when origins is neither a list, * nor a function', () => {
    for (const origins of [[], 'https://app.example.com', undefined, null, 42, {}]) {
      assert.throws(() => createCors({ origins } as never), {
        name: 'TypeError',
        message:
          "cors.origins must be '*', a non-empty list of origins or a function (origin) => boolean",
      });
    }
    assert.throws(() => createCors({ origins: [42] } as never), {
      name: 'TypeError',
      message:
        /^cors\.origins: an origin is a string such as https:\/\/app\.example\.com, got number$/,
    });
  });

  it('throws a TypeError naming an unknown option and the known ones', () => {
    assert.throws(() => createCors({ origins: '*', maxage: 60 } as never), {
      name: 'TypeError',
      message: 'createCors: unknown option "maxage" (known: origins, maxAge)',
    });
    assert.throws(() => createCors({ origin: ['https://app.example.com'] } as never), {
      name: 'TypeError',
      message: /^createCors: unknown option "origin" \(known: origins, maxAge\)$/,
    });
  });
});
