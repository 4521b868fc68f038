/**
 * What the host-auth recipes' tests share (`test/*\/*-recipe.test.ts`): HS256 tokens signed with
 * jose, and the cases every recipe must answer over a real socket: the host's accepted caller
 * creates (an int64 id kept exactly), no token is the bare challenge (no token, no create), and
 * a token the host refuses is `invalid_token`.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { withDeadline } from './node-helpers.ts';

/** The secret the recipes read from `JWT_SECRET`. */
export const JWT_SECRET = 'the-host-secret-that-signs-its-tokens';

/** An HS256 JWT for `sub`, valid for a minute, signed with `secret`. */
export function tokenFor(sub: string, secret = JWT_SECRET): Promise<string> {
  return new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(new TextEncoder().encode(secret));
}

function create(url: string, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  return withDeadline(
    fetch(`${url}/plants`, {
      method: 'POST',
      headers,
      body: '{"id": 9007199254740993, "name": "Monstera"}',
    }),
    `a create at ${url}`,
  );
}

/**
 * Sends the cases to the store at `url`: `accepted` and `refused` are Authorization values the
 * host accepts and refuses.
 */
export async function assertHostDecides(
  url: string,
  accepted: string,
  refused: string,
): Promise<void> {
  const none = await create(url);
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="plant-store"');
  assert.deepEqual(await none.json(), { error: 401, message: 'a bearer token is required' });
  const wrong = await create(url, refused);
  assert.equal(wrong.status, 401);
  assert.equal(
    wrong.headers.get('www-authenticate'),
    'Bearer realm="plant-store", error="invalid_token"',
  );
  const created = await create(url, accepted);
  assert.equal(created.status, 200);
  assert.equal(await created.text(), '{"name":"Monstera"}');
}
