import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettings } from '../../lib/cli/settings.ts';

function settingsOf(env: Record<string, string>) {
  const result = parseSettings(env);
  assert.ok(result.ok, `expected settings, got ${JSON.stringify(result)}`);
  return result.settings;
}

function errorOf(env: Record<string, string>): string {
  const result = parseSettings(env);
  assert.ok(!result.ok, `expected an error for ${JSON.stringify(env)}`);
  assert.doesNotMatch(result.error, /\n/, 'the error is one line');
  return result.error;
}

describe('parseSettings', () => {
  it('returns port 3000, host 127.0.0.1, a random token, memory storage and the default limits when nothing is set', () => {
    assert.deepEqual(parseSettings({}), {
      ok: true,
      settings: {
        port: 3000,
        host: '127.0.0.1',
        auth: { kind: 'random-token' },
        storage: { kind: 'memory' },
        cors: undefined,
        location: { publicUrl: undefined, basePath: '' },
        limits: {
          maxBodyBytes: 102_400,
          timeoutMs: 10_000,
          keepAliveTimeoutMs: 65_000,
          headersTimeoutMs: 10_000,
          requestTimeoutMs: 30_000,
          pgPoolMax: 10,
          pgMaxBatch: 100,
          pgMaxInFlight: 4,
          pgPrepare: true,
          maxPlants: undefined,
          maxConnections: 4096,
        },
        log: { format: 'auto', level: 'info' },
        admin: undefined,
        drainMs: 0,
      },
    });
  });

  it('reads PORT as a decimal integer in 0-65535 when it is one', () => {
    assert.equal(settingsOf({ PORT: '0' }).port, 0);
    assert.equal(settingsOf({ PORT: '8080' }).port, 8080);
    assert.equal(settingsOf({ PORT: '65535' }).port, 65535);
  });

  it('reports PORT when it is not an integer in 0-65535', () => {
    for (const port of [
      '',
      'abc',
      '-1',
      '65536',
      '99999',
      '3000.5',
      '1e3',
      ' 80',
      '0x50',
      '123456',
    ]) {
      assert.equal(
        errorOf({ PORT: port }),
        `PORT must be an integer in 0-65535, got ${JSON.stringify(port)}`,
      );
    }
  });

  it('reads HOST as given and reports it when empty', () => {
    assert.equal(settingsOf({ HOST: '0.0.0.0' }).host, '0.0.0.0');
    assert.equal(settingsOf({ HOST: '::1' }).host, '::1');
    assert.equal(errorOf({ HOST: '' }), 'HOST must not be empty');
    assert.equal(errorOf({ HOST: '  ' }), 'HOST must not be empty');
  });

  it('splits PLANT_STORE_TOKENS on commas and trims each token when it is set', () => {
    assert.deepEqual(settingsOf({ PLANT_STORE_TOKENS: ' alpha , beta,gamma~+/= ' }).auth, {
      kind: 'tokens',
      tokens: ['alpha', 'beta', 'gamma~+/='],
    });
    assert.deepEqual(settingsOf({ PLANT_STORE_TOKENS: 'solo,,' }).auth, {
      kind: 'tokens',
      tokens: ['solo'],
    });
  });

  it('reports PLANT_STORE_TOKENS when it is set but holds no token', () => {
    for (const tokens of ['', ',', ' , ,', '   ']) {
      assert.equal(
        errorOf({ PLANT_STORE_TOKENS: tokens }),
        'PLANT_STORE_TOKENS is set but holds no token (comma-separated list)',
      );
    }
  });

  it('reports a token that is not an RFC 6750 b64token without echoing it', () => {
    const error = errorOf({ PLANT_STORE_TOKENS: 'good, bad secret' });
    assert.match(error, /^PLANT_STORE_TOKENS: token 2 is not a valid bearer token/);
    assert.doesNotMatch(error, /secret/);
    errorOf({ PLANT_STORE_TOKENS: 'a=b' });
    errorOf({ PLANT_STORE_TOKENS: 'é' });
  });

  it('reports the first bad setting when several are bad', () => {
    assert.match(errorOf({ PORT: 'x', PLANT_STORE_TOKENS: '' }), /^PORT /);
  });

  it('selects postgres storage with the URL when DATABASE_URL is a postgres URL', () => {
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/test',
      'postgresql://user:pw@db.example.com/plants?sslmode=require',
      'postgres:///plants',
    ]) {
      assert.deepEqual(settingsOf({ DATABASE_URL: url }).storage, {
        kind: 'postgres',
        url,
        table: 'plants',
      });
    }
  });

  it('reads PLANT_STORE_TABLE as given, and reports a name PostgreSQL would not keep whole', () => {
    const url = 'postgres://db/x';
    for (const table of [
      'Plants',
      ' spaced ',
      'a"b; DROP TABLE c',
      'x'.repeat(63),
      'é'.repeat(31),
    ]) {
      assert.deepEqual(settingsOf({ DATABASE_URL: url, PLANT_STORE_TABLE: table }).storage, {
        kind: 'postgres',
        url,
        table,
      });
    }
    for (const table of ['', 'x'.repeat(64), 'é'.repeat(32)]) {
      assert.equal(
        errorOf({ DATABASE_URL: url, PLANT_STORE_TABLE: table }),
        'PLANT_STORE_TABLE must be a non-empty identifier of at most 63 bytes without U+0000',
      );
    }
    assert.equal(errorOf({ PLANT_STORE_TABLE: 'plants' }), 'PLANT_STORE_TABLE needs DATABASE_URL');
  });

  it('reports DATABASE_URL without echoing it when it is not a postgres URL', () => {
    for (const url of [
      '',
      ' ',
      'not a url',
      'mysql://root:hunter2@db/x',
      'http://db/',
      'postgres',
    ]) {
      const error = errorOf({ DATABASE_URL: url });
      assert.equal(error, 'DATABASE_URL must be a postgres:// or postgresql:// URL');
    }
  });

  describe('JWT mode', () => {
    const JWT = {
      PLANT_STORE_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      PLANT_STORE_JWT_ISSUER: 'https://id.example.com/',
      PLANT_STORE_JWT_AUDIENCE: 'plant-store',
    };

    it('selects jwt auth with the default allowlist when the JWKS URL, issuer and audience are set', () => {
      assert.deepEqual(settingsOf(JWT).auth, {
        kind: 'jwt',
        jwksUrl: 'https://id.example.com/.well-known/jwks.json',
        issuer: 'https://id.example.com/',
        audience: 'plant-store',
        algorithms: undefined,
      });
      assert.equal(
        (
          settingsOf({ ...JWT, PLANT_STORE_JWKS_URL: 'http://127.0.0.1:9/jwks' }).auth as {
            jwksUrl: string;
          }
        ).jwksUrl,
        'http://127.0.0.1:9/jwks',
      );
    });

    it('splits PLANT_STORE_JWT_ALGORITHMS on commas and trims each name when it is set', () => {
      const auth = settingsOf({ ...JWT, PLANT_STORE_JWT_ALGORITHMS: ' ES256 ,EdDSA,, RS256 ' })
        .auth as { algorithms: readonly string[] };
      assert.deepEqual(auth.algorithms, ['ES256', 'EdDSA', 'RS256']);
    });

    it('reports PLANT_STORE_JWT_ALGORITHMS when it is set but holds no algorithm', () => {
      for (const algorithms of ['', ',', ' , ']) {
        assert.equal(
          errorOf({ ...JWT, PLANT_STORE_JWT_ALGORITHMS: algorithms }),
          'PLANT_STORE_JWT_ALGORITHMS is set but holds no algorithm (comma-separated list)',
        );
      }
    });

    it('reports PLANT_STORE_TOKENS together with any JWT setting', () => {
      for (const name of Object.keys(JWT).concat('PLANT_STORE_JWT_ALGORITHMS')) {
        assert.equal(
          errorOf({ PLANT_STORE_TOKENS: 'tok', [name]: 'x' }),
          `PLANT_STORE_TOKENS and ${name} exclude each other: set a token list or the JWT settings, not both`,
        );
      }
      assert.match(errorOf({ ...JWT, PLANT_STORE_TOKENS: 'tok' }), /exclude each other/);
    });

    it('reports an issuer, audience or allowlist when PLANT_STORE_JWKS_URL is not set', () => {
      for (const name of [
        'PLANT_STORE_JWT_ISSUER',
        'PLANT_STORE_JWT_AUDIENCE',
        'PLANT_STORE_JWT_ALGORITHMS',
      ]) {
        assert.equal(errorOf({ [name]: 'x' }), `${name} needs PLANT_STORE_JWKS_URL (JWT mode)`);
      }
      const { PLANT_STORE_JWKS_URL: _, ...withoutUrl } = JWT;
      assert.equal(
        errorOf(withoutUrl),
        'PLANT_STORE_JWT_ISSUER needs PLANT_STORE_JWKS_URL (JWT mode)',
      );
    });

    it('reports PLANT_STORE_JWKS_URL when the issuer or the audience is missing', () => {
      const url = { PLANT_STORE_JWKS_URL: JWT.PLANT_STORE_JWKS_URL };
      for (const env of [
        url,
        { ...url, PLANT_STORE_JWT_ISSUER: 'iss' },
        { ...url, PLANT_STORE_JWT_AUDIENCE: 'aud' },
      ]) {
        assert.equal(
          errorOf(env),
          'PLANT_STORE_JWKS_URL needs both PLANT_STORE_JWT_ISSUER and PLANT_STORE_JWT_AUDIENCE (JWT mode)',
        );
      }
    });

    it('reports PLANT_STORE_JWKS_URL when it is not an http or https URL', () => {
      for (const jwksUrl of ['', 'not a url', 'ftp://id.example.com/jwks', 'file:///etc/jwks']) {
        assert.equal(
          errorOf({ ...JWT, PLANT_STORE_JWKS_URL: jwksUrl }),
          'PLANT_STORE_JWKS_URL must be an http or https URL',
        );
      }
    });

    it('reports PLANT_STORE_JWKS_URL without echoing it when it holds a user name or password', () => {
      // fetch refuses such a URL on every request, and its message would print the password.
      for (const jwksUrl of [
        'https://user:s3cret@id.example.com/jwks',
        'http://s3cret@127.0.0.1/',
      ]) {
        assert.equal(
          errorOf({ ...JWT, PLANT_STORE_JWKS_URL: jwksUrl }),
          'PLANT_STORE_JWKS_URL must not hold a user name or password',
        );
      }
    });

    it('reports an empty issuer or audience', () => {
      assert.equal(
        errorOf({ ...JWT, PLANT_STORE_JWT_ISSUER: '' }),
        'PLANT_STORE_JWT_ISSUER must not be empty',
      );
      assert.equal(
        errorOf({ ...JWT, PLANT_STORE_JWT_AUDIENCE: '' }),
        'PLANT_STORE_JWT_AUDIENCE must not be empty',
      );
    });

    it('reports an issuer or audience of only spaces as empty', () => {
      // A blank value is a slip in the environment, never a real iss or aud.
      assert.equal(
        errorOf({ ...JWT, PLANT_STORE_JWT_ISSUER: '  ' }),
        'PLANT_STORE_JWT_ISSUER must not be empty',
      );
      assert.equal(
        errorOf({ ...JWT, PLANT_STORE_JWT_AUDIENCE: ' ' }),
        'PLANT_STORE_JWT_AUDIENCE must not be empty',
      );
    });
  });

  it('reads PLANT_STORE_PUBLIC_URL and its path as the base path when it is set', () => {
    assert.deepEqual(
      settingsOf({ PLANT_STORE_PUBLIC_URL: 'https://api.example.com/v1/' }).location,
      {
        publicUrl: 'https://api.example.com/v1/',
        basePath: '/v1',
      },
    );
    assert.equal(
      settingsOf({ PLANT_STORE_PUBLIC_URL: 'https://api.example.com' }).location.basePath,
      '',
    );
  });

  it('reports PLANT_STORE_PUBLIC_URL when it is not an absolute http(s) URL without a query', () => {
    for (const raw of [
      '',
      '/v1',
      'ftp://example.com',
      'https://example.com/?a=1',
      'https://u:p@x.example',
    ]) {
      assert.match(errorOf({ PLANT_STORE_PUBLIC_URL: raw }), /^PLANT_STORE_PUBLIC_URL must/);
    }
  });

  it('reads PLANT_STORE_BASE_PATH over the public URL path, and reports a malformed one', () => {
    const env = { PLANT_STORE_PUBLIC_URL: 'https://api.example.com/v1' };
    assert.equal(settingsOf({ ...env, PLANT_STORE_BASE_PATH: '/' }).location.basePath, '');
    assert.equal(settingsOf({ PLANT_STORE_BASE_PATH: '/api/v2' }).location.basePath, '/api/v2');
    for (const raw of ['', 'api', '/api/', '/a?b', '/..', '/api/.', '/%2e%2e']) {
      assert.match(errorOf({ PLANT_STORE_BASE_PATH: raw }), /^PLANT_STORE_BASE_PATH must be \//);
    }
  });

  it('refuses PLANT_STORE_TRUST_PROXY, saying the server is relative now and naming the public URL', () => {
    for (const raw of ['true', 'false', '2', '']) {
      assert.equal(
        errorOf({ PLANT_STORE_TRUST_PROXY: raw }),
        "PLANT_STORE_TRUST_PROXY is retired: the OpenAPI document's server is relative now, right behind any proxy; set PLANT_STORE_PUBLIC_URL to name an absolute one",
      );
    }
  });

  it('reads PLANT_STORE_CORS_ORIGINS as * or a trimmed list of exact origins', () => {
    assert.equal(settingsOf({}).cors, undefined);
    assert.deepEqual(settingsOf({ PLANT_STORE_CORS_ORIGINS: '*' }).cors, { origins: '*' });
    assert.deepEqual(settingsOf({ PLANT_STORE_CORS_ORIGINS: ' * ' }).cors, { origins: '*' });
    assert.deepEqual(
      settingsOf({
        PLANT_STORE_CORS_ORIGINS: ' https://app.example.com ,, http://localhost:5173 ',
      }).cors,
      { origins: ['https://app.example.com', 'http://localhost:5173'] },
    );
    assert.deepEqual(
      settingsOf({ PLANT_STORE_CORS_ORIGINS: 'https://*.example.com,http://*.localhost:5173' })
        .cors,
      { origins: ['https://*.example.com', 'http://*.localhost:5173'] },
    );
  });

  it('reports PLANT_STORE_CORS_ORIGINS when it holds no origin or one no browser sends', () => {
    assert.match(errorOf({ PLANT_STORE_CORS_ORIGINS: '' }), /holds no origin/);
    assert.match(errorOf({ PLANT_STORE_CORS_ORIGINS: ' , ' }), /holds no origin/);
    for (const [raw, reason] of [
      [
        'https://app.example.com/',
        /must be written as a browser sends it: https:\/\/app\.example\.com /,
      ],
      ['https://app.example.com/path', /must be written as a browser sends it/],
      ['https://App.example.com', /must be written as a browser sends it/],
      ['http://localhost:80', /must be written as a browser sends it: http:\/\/localhost /],
      ['app.example.com', /not an http\(s\) origin/],
      ['file:///tmp', /not an http\(s\) origin/],
      ['null', /not an http\(s\) origin/],
      ['https://a.test,*', /stands alone/],
      ['https://a.*.example.com', /a wildcard stands only for the leading labels/],
      ['*.example.com', /a bare host needs its scheme/],
      ['https://*.example.com/', /has a trailing slash/],
    ] as const) {
      const error = errorOf({ PLANT_STORE_CORS_ORIGINS: raw });
      assert.match(error, /^PLANT_STORE_CORS_ORIGINS: /, raw);
      assert.match(error, reason, raw);
    }
  });

  it('reads the limits, each an integer in its range', () => {
    const { limits } = settingsOf({
      PLANT_STORE_MAX_BODY_BYTES: '2048',
      PLANT_STORE_TIMEOUT_MS: '2500',
      PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS: '1',
      PLANT_STORE_HEADERS_TIMEOUT_MS: '5000',
      PLANT_STORE_REQUEST_TIMEOUT_MS: '20000',
      PLANT_STORE_MAX_PLANTS: '1000',
      PLANT_STORE_MAX_CONNECTIONS: '512',
    });
    assert.deepEqual(limits, {
      maxBodyBytes: 2048,
      timeoutMs: 2500,
      keepAliveTimeoutMs: 1,
      headersTimeoutMs: 5000,
      requestTimeoutMs: 20_000,
      pgPoolMax: 10,
      pgMaxBatch: 100,
      pgMaxInFlight: 4,
      pgPrepare: true,
      maxPlants: 1000,
      maxConnections: 512,
    });
    const postgres = settingsOf({
      DATABASE_URL: 'postgres://db/x',
      PLANT_STORE_PG_POOL_MAX: '4',
      PLANT_STORE_PG_MAX_BATCH: '50',
      PLANT_STORE_PG_MAX_IN_FLIGHT: '2',
    }).limits;
    assert.deepEqual([postgres.pgPoolMax, postgres.pgMaxBatch, postgres.pgMaxInFlight], [4, 50, 2]);
  });

  it('prepares PostgreSQL statements unless PLANT_STORE_PG_PREPARE is false', () => {
    const database = { DATABASE_URL: 'postgres://db/x' };
    assert.equal(settingsOf(database).limits.pgPrepare, true);
    assert.equal(
      settingsOf({ ...database, PLANT_STORE_PG_PREPARE: 'false' }).limits.pgPrepare,
      false,
    );
    assert.equal(
      settingsOf({ ...database, PLANT_STORE_PG_PREPARE: ' TRUE ' }).limits.pgPrepare,
      true,
    );
    assert.equal(
      errorOf({ ...database, PLANT_STORE_PG_PREPARE: 'off' }),
      'PLANT_STORE_PG_PREPARE must be true or false, got "off"',
    );
    assert.match(
      errorOf({ PLANT_STORE_PG_PREPARE: 'false' }),
      /^PLANT_STORE_PG_PREPARE needs DATABASE_URL/,
    );
  });

  it('reports a limit out of its range or not a decimal integer, naming it', () => {
    for (const [name, value] of [
      ['PLANT_STORE_MAX_BODY_BYTES', '0'],
      ['PLANT_STORE_MAX_BODY_BYTES', '1e6'],
      ['PLANT_STORE_TIMEOUT_MS', '0'],
      ['PLANT_STORE_TIMEOUT_MS', '2147483648'],
      ['PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS', '-1'],
      // A timeout of 0 would mean "never": slowloris protection off.
      ['PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS', '0'],
      ['PLANT_STORE_HEADERS_TIMEOUT_MS', '0'],
      ['PLANT_STORE_REQUEST_TIMEOUT_MS', '0'],
      ['PLANT_STORE_HEADERS_TIMEOUT_MS', 'soon'],
      ['PLANT_STORE_MAX_PLANTS', ''],
      ['PLANT_STORE_MAX_CONNECTIONS', '0'],
      ['PLANT_STORE_MAX_CONNECTIONS', '1000001'],
    ] as const) {
      assert.match(
        errorOf({ [name]: value }),
        new RegExp(`^${name} must be an integer in `),
        value,
      );
    }
    assert.match(
      errorOf({ PLANT_STORE_HEADERS_TIMEOUT_MS: '9000', PLANT_STORE_REQUEST_TIMEOUT_MS: '5000' }),
      /must not exceed PLANT_STORE_REQUEST_TIMEOUT_MS/,
    );
    for (const name of [
      'PLANT_STORE_PG_POOL_MAX',
      'PLANT_STORE_PG_MAX_BATCH',
      'PLANT_STORE_PG_MAX_IN_FLIGHT',
    ]) {
      assert.match(errorOf({ [name]: '4' }), new RegExp(`^${name} needs DATABASE_URL`));
    }
    for (const [name, value] of [
      ['PLANT_STORE_PG_MAX_BATCH', '0'],
      ['PLANT_STORE_PG_MAX_BATCH', '10001'],
      ['PLANT_STORE_PG_MAX_IN_FLIGHT', '0'],
      ['PLANT_STORE_PG_MAX_IN_FLIGHT', '1001'],
    ] as const) {
      assert.match(
        errorOf({ DATABASE_URL: 'postgres://db/x', [name]: value }),
        new RegExp(`^${name} must be an integer in `),
      );
    }
    assert.match(
      errorOf({ DATABASE_URL: 'postgres://db/x', PLANT_STORE_MAX_PLANTS: '4' }),
      /caps the memory store/,
    );
  });

  it('reports a limit or admin port with spaces around its digits, as it does PORT', () => {
    for (const name of ['PLANT_STORE_TIMEOUT_MS', 'PLANT_STORE_ADMIN_PORT', 'PORT']) {
      assert.match(errorOf({ [name]: ' 5000 ' }), new RegExp(`^${name} must be an integer in `));
    }
  });

  it('reads PLANT_STORE_LOG as a format and a level, in any order', () => {
    assert.deepEqual(settingsOf({ PLANT_STORE_LOG: 'json' }).log, {
      format: 'json',
      level: 'info',
    });
    assert.deepEqual(settingsOf({ PLANT_STORE_LOG: 'warn, text' }).log, {
      format: 'text',
      level: 'warn',
    });
    assert.deepEqual(settingsOf({ PLANT_STORE_LOG: 'off' }).log, { format: 'off', level: 'info' });
    assert.match(
      errorOf({ PLANT_STORE_LOG: 'verbose' }),
      /^PLANT_STORE_LOG takes json, text or off/,
    );
  });

  it('reads the admin listener, off unless its port is set', () => {
    assert.deepEqual(settingsOf({ PLANT_STORE_ADMIN_PORT: '9090' }).admin, {
      port: 9090,
      host: '127.0.0.1',
    });
    assert.deepEqual(
      settingsOf({ PLANT_STORE_ADMIN_PORT: '0', PLANT_STORE_ADMIN_HOST: '0.0.0.0' }).admin,
      { port: 0, host: '0.0.0.0' },
    );
    assert.match(errorOf({ PLANT_STORE_ADMIN_HOST: '0.0.0.0' }), /needs PLANT_STORE_ADMIN_PORT/);
    assert.match(errorOf({ PLANT_STORE_ADMIN_PORT: '70000' }), /PLANT_STORE_ADMIN_PORT must be/);
  });

  it('drains 5 s by default when an admin port is set, since something probes /readyz, and not at all without one', () => {
    assert.equal(settingsOf({}).drainMs, 0);
    assert.equal(settingsOf({ PLANT_STORE_ADMIN_PORT: '9090' }).drainMs, 5000);
    assert.equal(
      settingsOf({ PLANT_STORE_ADMIN_PORT: '9090', PLANT_STORE_DRAIN_MS: '0' }).drainMs,
      0,
    );
    assert.equal(settingsOf({ PLANT_STORE_DRAIN_MS: '1500' }).drainMs, 1500);
    assert.equal(settingsOf({ PLANT_STORE_DRAIN_MS: '2147483647' }).drainMs, 2_147_483_647);
  });

  it('reports PLANT_STORE_DRAIN_MS when it is not an integer of milliseconds a timer holds', () => {
    for (const drain of ['', '-1', '1.5', '5s', ' 5000', '2147483648']) {
      assert.equal(
        errorOf({ PLANT_STORE_DRAIN_MS: drain }),
        `PLANT_STORE_DRAIN_MS must be an integer in 0-2147483647, got ${JSON.stringify(drain)}`,
      );
    }
  });

  it('refuses an unknown PLANT_STORE_* variable, suggesting the nearest known one', () => {
    assert.equal(
      errorOf({ PLANT_STORE_TOKEN: 'abc' }),
      'PLANT_STORE_TOKEN is not a setting plant-store knows; did you mean PLANT_STORE_TOKENS? (plant-store --help lists them)',
    );
    assert.match(errorOf({ PLANT_STORE_TIMEOUT: '5' }), /did you mean PLANT_STORE_TIMEOUT_MS\?/);
    // Other variables are none of plant-store's business.
    assert.equal(settingsOf({ NODE_ENV: 'production', PATH: '/bin' }).port, 3000);
  });
});
