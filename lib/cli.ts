#!/usr/bin/env -S node --import tsx
/**
 * The standalone server (`npm start`, the `plant-store` bin): the plant store with the
 * in-memory repository over `node:http`.
 *
 * Settings come from the environment (`PORT`, `HOST`, `PLANT_STORE_TOKENS`; see
 * `_settings.ts`). Bad settings print one line on stderr and exit 2 before anything listens.
 * Ready, it prints `plant-store listening on http://HOST:PORT` (and, when it generated the
 * token, `plant-store token: <token>` first). `SIGINT`/`SIGTERM` stop accepting, let in-flight
 * requests finish (up to 10 s) and exit 0; a second signal cuts what is left at once.
 *
 * @module
 */

import { parseSettings } from './_settings.ts';
import { createPlantStore } from './create-plant-store.ts';
import { createMemoryRepository } from './memory-repository.ts';
import { type ServeHandle, serve } from './node-listener.ts';
import { createStaticTokenVerifier } from './static-token-verifier.ts';

const SHUTDOWN_TIMEOUT_MS = 10_000;

const parsed = parseSettings(process.env);
if (!parsed.ok) {
  process.stderr.write(`plant-store: ${parsed.error}\n`);
  process.exit(2);
}
const { settings } = parsed;

// Web Crypto rather than node:crypto: 32 random bytes, base64url (a valid RFC 6750 b64token).
const generatedToken =
  settings.auth.kind === 'random-token'
    ? Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
    : undefined;
const tokens = settings.auth.kind === 'tokens' ? settings.auth.tokens : [generatedToken as string];

const onError = (error: unknown): void => {
  console.error('plant-store: unexpected error:', error);
};

const store = createPlantStore({
  repository: createMemoryRepository(),
  verifier: createStaticTokenVerifier(tokens),
  onError,
});

let handle: ServeHandle | undefined;
let stopping = false;
const stop = (): void => {
  if (stopping) {
    // A second signal: stop waiting for in-flight requests.
    handle?.server.closeAllConnections();
    return;
  }
  stopping = true;
  // Nothing listens yet: nothing to drain.
  if (handle === undefined) process.exit(0);
  handle.close().then(() => process.exit(0));
};
// Installed before listening, so a signal during start-up still ends the process cleanly.
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

try {
  handle = await serve({
    fetch: store.fetch,
    port: settings.port,
    host: settings.host,
    onError,
    shutdownTimeout: SHUTDOWN_TIMEOUT_MS,
  });
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `plant-store: cannot listen on ${settings.host}:${settings.port}: ${reason}\n`,
  );
  process.exit(1);
}

if (generatedToken !== undefined) process.stdout.write(`plant-store token: ${generatedToken}\n`);
process.stdout.write(`plant-store listening on ${handle.url}\n`);
