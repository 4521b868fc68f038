import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorReply, errorResponse, PlantApiError } from '../lib/index.ts';

describe('PlantApiError', () => {
  it('carries a stable code, its status, its name and the cause', () => {
    const cause = new Error('socket closed');
    const error = new PlantApiError('ERR_TIMEOUT', undefined, { cause });
    assert.ok(error instanceof PlantApiError);
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'PlantApiError');
    assert.equal(error.code, 'ERR_TIMEOUT');
    assert.equal(error.status, 503);
    assert.equal(error.message, 'the request timed out; retrying it is safe');
    assert.equal(error.cause, cause);
  });

  it('throws a TypeError for a code outside the list, as JavaScript can pass', () => {
    for (const build of [
      () => new PlantApiError('ERR_NOPE' as never),
      () => errorReply('ERR_NOPE' as never),
      () => errorReply('toString' as never),
    ]) {
      assert.throws(build, { name: 'TypeError', message: /^unknown plant-store error code: / });
    }
  });

  it('takes a message of its own', () => {
    const error = new PlantApiError('ERR_INVALID_PLANT', 'name must be a string');
    assert.equal(error.message, 'name must be a string');
    assert.equal(error.status, 400);
  });
});

describe('errorReply', () => {
  it('builds the Error body with the status as error and the JSON content type', () => {
    assert.deepEqual(errorReply('ERR_NOT_FOUND'), {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"error":404,"message":"not found"}',
    });
  });

  it('adds the challenge to 401s and Allow to 405s', () => {
    assert.equal(
      errorReply('ERR_MISSING_TOKEN').headers['www-authenticate'],
      'Bearer realm="plant-store"',
    );
    assert.equal(
      errorReply('ERR_INVALID_TOKEN').headers['www-authenticate'],
      'Bearer realm="plant-store", error="invalid_token"',
    );
    assert.equal(errorReply('ERR_METHOD_NOT_ALLOWED').headers.allow, 'POST');
  });
});

describe('errorResponse', () => {
  it('builds a Response with the reply of the code and an optional message', async () => {
    const response = errorResponse('ERR_HEADERS_TOO_LARGE', 'too many cookies');
    assert.equal(response.status, 431);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { error: 431, message: 'too many cookies' });
  });
});
