import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../../lib/guards/redact-url.ts';

describe('redactUrl', () => {
  const cases: ReadonlyArray<[string, string | URL, string]> = [
    [
      'it holds nothing secret',
      'https://id.example.com/.well-known/jwks.json',
      'https://id.example.com/.well-known/jwks.json',
    ],
    [
      'it holds a user and a password',
      'https://user:pw@id.example.com/jwks.json',
      'https://***@id.example.com/jwks.json',
    ],
    [
      'it holds a user name only',
      'http://user@127.0.0.1:8080/jwks',
      'http://***@127.0.0.1:8080/jwks',
    ],
    [
      'it holds a query and a fragment',
      'https://id.example.com/jwks?key=s3cret#frag',
      'https://id.example.com/jwks?***#***',
    ],
    [
      'it is a database URL',
      'postgres://app:s3cret@db.internal:5432/plants?sslmode=require',
      'postgres://***@db.internal:5432/plants?***',
    ],
    [
      'it is a URL object',
      new URL('https://u:p@id.example.com/?a=1'),
      'https://***@id.example.com/?***',
    ],
    ['it is not a URL', 's3cret-not-a-url', '(not a URL)'],
  ];
  for (const [condition, url, expected] of cases) {
    it(`keeps only what is safe to echo when ${condition}`, () => {
      assert.equal(redactUrl(url), expected);
    });
  }
});
