/**
 * What the JWT verifier's tests share: the issuer and audience, test keys and tokens signed with
 * them, a JWKS server on 127.0.0.1 whose keys and behaviour a test can change, and a deadline on
 * every verification, so that a hang fails as an assertion.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import type { TokenVerdict } from '../../lib/index.ts';
import { createJwtVerifier } from '../../lib/jwt.ts';

export const ISSUER = 'https://id.example.test/';
export const AUDIENCE = 'plant-store';
export const DEADLINE_MS = 5000;

/** Fails the test instead of hanging it when `promise` takes longer than `ms`. */
export async function withDeadline<T>(promise: Promise<T> | T, ms = DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadline of ${ms} ms passed`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const now = () => Math.floor(Date.now() / 1000);
const context = () => ({ signal: new AbortController().signal });

/** A key pair a test signs with, and its public JWK as a JWKS publishes it. */
export interface TestKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

export async function makeKey(alg: string, kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicKey, jwk };
}

export interface SignOptions {
  readonly claims?: JWTPayload;
  readonly header?: Record<string, unknown>;
  /** Leave `kid` out of the header. */
  readonly noKid?: boolean;
  /** Leave `exp` out of the claims. */
  readonly noExp?: boolean;
}

/** A token signed by `key`, valid for this verifier unless `options` say otherwise. */
export function sign(key: TestKey, options: SignOptions = {}): Promise<string> {
  const claims: JWTPayload = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'gardener-1',
    iat: now(),
    ...(options.noExp ? {} : { exp: now() + 300 }),
    ...options.claims,
  };
  const header = { alg: key.alg, ...(options.noKid ? {} : { kid: key.kid }), ...options.header };
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
}

/** A token with no valid signature: `alg: none` and friends. */
export function unsignedToken(header: object, claims: object, signature = ''): string {
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  return `${encode(header)}.${encode(claims)}.${signature}`;
}

/** How the JWKS server answers: keys, a 500, bad JSON, no key set, never, or for ever. */
export type JwksMode = 'ok' | 'error' | 'bad-json' | 'not-a-key-set' | 'hang' | 'endless';

/** A JWKS served by node:http on 127.0.0.1, whose keys and behaviour a test can change. */
export interface JwksServer {
  readonly url: string;
  /** The requests served so far. */
  readonly requests: number;
  setKeys(keys: readonly JWK[]): void;
  setMode(mode: JwksMode): void;
  close(): Promise<void>;
}

const servers: JwksServer[] = [];

/** Closes every JWKS server started so far (each test file's `after`). */
export async function closeJwksServers(): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}

/** Starts a JWKS server publishing `keys`; `closeJwksServers` stops it. */
export async function startJwksServer(keys: readonly JWK[]): Promise<JwksServer> {
  let current = keys;
  let mode: JwksMode = 'ok';
  let requests = 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((_request, response) => {
    requests++;
    if (mode === 'hang') {
      hanging.push(response);
      return;
    }
    if (mode === 'endless') {
      // A key server that streams for ever: a JWKS of whitespace that never ends.
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', more);
      more();
      hanging.push(response);
      return;
    }
    if (mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
      return;
    }
    const body =
      mode === 'bad-json'
        ? '{"keys": ['
        : JSON.stringify(mode === 'not-a-key-set' ? { keys: 'none' } : { keys: current });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const handle: JwksServer = {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get requests() {
      return requests;
    },
    setKeys(next) {
      current = next;
    },
    setMode(next) {
      mode = next;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
  servers.push(handle);
  return handle;
}

/** A URL on which nothing listens: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/jwks.json`;
}

/** A refusal, with some reason (`jwt-reasons.test.ts` checks which one each case gets). */
export function assertRefused(verdict: TokenVerdict): void {
  assert.equal(verdict.valid, false);
  assert.equal(typeof (verdict as { reason?: unknown }).reason, 'string');
}

/** The keys most tests sign with. */
export interface TestKeys {
  readonly rs256: TestKey;
  readonly ps256: TestKey;
  readonly es256: TestKey;
  readonly eddsa: TestKey;
  /** An RS256 key with rs256's kid, in no JWKS: only the signature tells them apart. */
  readonly stranger: TestKey;
}

/** Makes the keys of `TestKeys` (a test file's `before`). */
export async function makeTestKeys(): Promise<TestKeys> {
  const [rs256, ps256, es256, eddsa, stranger] = await Promise.all([
    makeKey('RS256', 'rsa-1'),
    makeKey('PS256', 'pss-1'),
    makeKey('ES256', 'ec-1'),
    makeKey('EdDSA', 'ed-1'),
    makeKey('RS256', 'rsa-1'),
  ]);
  return { rs256, ps256, es256, eddsa, stranger };
}

/** A verifier of `server`'s keys for this issuer and audience, with `extra` options. */
export function verifierFor(server: JwksServer, extra: Record<string, unknown> = {}) {
  return createJwtVerifier({ jwksUrl: server.url, issuer: ISSUER, audience: AUDIENCE, ...extra });
}

/** Verifies `token` within the deadline. */
export async function verify(
  verifier: ReturnType<typeof createJwtVerifier>,
  token: string,
): Promise<TokenVerdict> {
  return withDeadline(verifier.verify(token, context()));
}

/** An HMAC token signed with `secret`. */
export function hmacToken(secret: Uint8Array, alg = 'HS256'): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg })
    .sign(secret);
}

/** The classic key-confusion attack: the public key's bytes used as an HMAC secret. */
export function hmacWithPublicKey(secret: Uint8Array, kid: string): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg: 'HS256', kid })
    .sign(secret);
}

/** A token under `alg` made with `key`'s private key, reimported for that alg. */
export async function signWith(alg: string, key: TestKey): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
    .setProtectedHeader({ alg, kid: key.kid })
    .sign(await reimport(key, alg));
}

async function reimport(key: TestKey, alg: string): Promise<CryptoKey> {
  const jwk = await exportJWK(key.privateKey);
  return (await importJWK({ ...jwk, alg }, alg)) as CryptoKey;
}
